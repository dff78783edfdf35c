import java.io.File;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** args: protocol port useAsyncIO. Serves /size: 102 bytes, as /size?kb=0.1. Prints PID, runs until killed. */
public class H2Server {
    public static void main(String[] args) throws Exception {
        File base = Files.createTempDirectory("h2bench").toFile();
        base.deleteOnExit();
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.getAbsolutePath());
        Connector c = new Connector(args[0]);
        c.setPort(Integer.parseInt(args[1]));
        c.setProperty("useAsyncIO", args[2]);
        c.setProperty("maxKeepAliveRequests", "-1");
        c.addUpgradeProtocol(new org.apache.coyote.http2.Http2Protocol());
        tomcat.getService().addConnector(c);
        tomcat.setConnector(c);
        Context ctx = tomcat.addContext("", base.getAbsolutePath());
        final byte[] body = new byte[102];
        java.util.Arrays.fill(body, (byte) 'x');
        Tomcat.addServlet(ctx, "size", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws java.io.IOException {
                resp.setContentType("text/plain");
                resp.setContentLength(body.length);
                resp.getOutputStream().write(body);
            }
        });
        ctx.addServletMappingDecoded("/size", "size");
        tomcat.start();
        System.out.println("READY " + ProcessHandle.current().pid());
        tomcat.getServer().await();
    }
}
