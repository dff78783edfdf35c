<%@ page contentType="text/plain;charset=UTF-8" %>Hello JSP <%= 6 * 7 %>
