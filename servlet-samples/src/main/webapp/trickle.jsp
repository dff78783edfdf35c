<%@ page buffer="none" contentType="text/plain;charset=US-ASCII" %><%--
  The issue's page: kb KB every ms milliseconds, n times, never flushed (buffer="none": the JSP writer passes every
  write to the response at once). Same parameters and body as /trickle, through the JSP writer.
--%><%
    int bytes = (int) Math.round(Double.parseDouble(request.getParameter("kb") == null ? "8" : request.getParameter("kb")) * 1024);
    long ms = Long.parseLong(request.getParameter("ms") == null ? "100" : request.getParameter("ms"));
    int n = Integer.parseInt(request.getParameter("n") == null ? "10" : request.getParameter("n"));
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char[] piece = new char[bytes];
    for (int i = 0; i < n; i++) {
        Thread.sleep(ms);
        out.write("piece " + i + "\n");
        java.util.Arrays.fill(piece, alphabet.charAt(i % alphabet.length()));
        out.write(piece);
    }
%>
