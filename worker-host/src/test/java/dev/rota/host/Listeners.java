package dev.rota.host;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Servers that say who they are: to each connection on {@code address:port} the one named {@code
 * name} writes {@code name} and a newline, then closes it. Run as its own process ({@code main},
 * arguments {@code address:port:name ...}) inside a network namespace, where the test cannot bind
 * from its own process; it prints {@code listening} once every socket is bound.
 */
public final class Listeners {
  private Listeners() {}

  public static void main(String[] args) throws IOException {
    List<Thread> threads = new ArrayList<>();
    for (String arg : args) {
      String[] parts = arg.split(":");
      ServerSocket server =
          new ServerSocket(Integer.parseInt(parts[1]), 50, InetAddress.getByName(parts[0]));
      byte[] answer = (parts[2] + "\n").getBytes(StandardCharsets.UTF_8);
      Thread t =
          new Thread(
              () -> {
                while (true) {
                  try (Socket c = server.accept()) {
                    c.getOutputStream().write(answer);
                  } catch (IOException e) {
                    // the caller went away
                  }
                }
              });
      t.start();
      threads.add(t);
    }
    System.out.println("listening");
    System.out.flush();
  }
}
