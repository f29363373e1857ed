package dev.rota.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process VM that serves its port {@code web}: to each connection it says {@code served on
 * <port>}, then sends back what it is sent, upper-cased, once the sender has finished. A Java
 * source file run by the test's own JDK, so that it needs nothing else on the machine.
 */
final class EchoVm {
  private static final String SOURCE =
      """
      public class Echo {
        public static void main(String[] a) throws Exception {
          int port = Integer.parseInt(System.getenv("ROTA_PORT_WEB"));
          try (var s = new java.net.ServerSocket(port, 50, java.net.InetAddress.getLoopbackAddress())) {
            while (true) {
              var c = s.accept();
              new Thread(() -> {
                try (c) {
                  c.getOutputStream().write(("served on " + port + "\\n").getBytes());
                  c.getOutputStream().flush();
                  byte[] in = c.getInputStream().readAllBytes();
                  c.getOutputStream().write(new String(in).toUpperCase().getBytes());
                } catch (Exception e) {
                  // the caller went away
                }
              }).start();
            }
          }
        }
      }
      """;

  private EchoVm() {}

  /** The body of {@code POST /v1/vms} for such a VM named {@code name}. */
  static String body(String name, Path dir) throws IOException {
    Path source = Files.writeString(Files.createTempFile(dir, "echo", ".java"), SOURCE);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return "{\"name\":\""
        + name
        + "\",\"command\":[\""
        + java
        + "\",\""
        + source
        + "\"],\"ports\":[{\"name\":\"web\",\"port\":80}]}";
  }
}
