package dev.rota.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;

/**
 * {@code rota vm port-forward NAME [LOCAL:]PORT}: listens on loopback and carries each connection
 * to the VM's port over a WebSocket to the server, which carries it on to the VM's agent (as {@code
 * kubectl port-forward} does through the API server). Runs until interrupted.
 */
final class PortForward {
  private final Context context;
  private final PrintWriter out;
  private final PrintWriter err;

  PortForward(Context context, PrintWriter out, PrintWriter err) {
    this.context = context;
    this.out = out;
    this.err = err;
  }

  /** {@code LOCAL:PORT} or {@code PORT}: the local port (0 for any free one) and the VM's port. */
  record Ports(int local, String remote) {
    static Ports parse(String text) {
      String[] parts = text.split(":", -1);
      String remote = parts[parts.length - 1];
      if (parts.length > 2
          || remote.isEmpty()
          || (parts.length == 2 && !parts[0].matches("[0-9]{1,5}"))) {
        throw new CliException(
            ExitCodes.USAGE,
            "port " + text + " must be [LOCAL:]PORT, PORT a name (ssh) or a number (22)");
      }
      int local =
          parts.length == 2
              ? Integer.parseInt(parts[0])
              : remote.matches("[0-9]{1,5}") ? Integer.parseInt(remote) : 0;
      if (local > 65535) {
        throw new CliException(ExitCodes.USAGE, "local port " + local + " is not a port number");
      }
      return new Ports(local, remote);
    }
  }

  int run(String vm, Ports ports) {
    URI socket = socketUri(vm, ports.remote());
    try (ServerSocket listening =
        new ServerSocket(ports.local(), 50, InetAddress.getLoopbackAddress())) {
      out.println(
          "Forwarding from 127.0.0.1:"
              + listening.getLocalPort()
              + " -> vm "
              + vm
              + " port "
              + ports.remote());
      out.flush();
      HttpClient http = HttpClient.newHttpClient();
      while (true) {
        Socket user = listening.accept();
        Thread t = new Thread(() -> carry(http, socket, user), "port-forward");
        t.setDaemon(true);
        t.start();
      }
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "cannot listen on 127.0.0.1:" + ports.local() + " (" + e.getMessage() + ")");
    }
  }

  private URI socketUri(String vm, String port) {
    return VmSocket.uri(
        context,
        "/v1/vms/" + ApiClient.segment(vm) + "/ports/" + ApiClient.segment(port) + "/forward");
  }

  /**
   * {@code rota vm connect}: one connection, its bytes from {@code in} and to {@code out} (a
   * command's stdin and stdout, as ssh's ProxyCommand uses them); 0 when the VM closed it, 1 when
   * it was refused or broke.
   */
  int stdio(String vm, String port, InputStream in, OutputStream out) {
    return carry(HttpClient.newHttpClient(), socketUri(vm, port), in, out)
        ? ExitCodes.OK
        : ExitCodes.FAILED;
  }

  /** One user connection, both ways, until either side ends it. */
  private void carry(HttpClient http, URI uri, Socket user) {
    try (user) {
      carry(http, uri, user.getInputStream(), user.getOutputStream());
    } catch (IOException e) {
      // the user's connection went away
    }
  }

  /** Whether the VM's side closed it (rather than a refusal or a break). */
  private boolean carry(HttpClient http, URI uri, InputStream fromUser, OutputStream toUser) {
    return new VmSocket(context, err, "vm port-forward").carry(http, uri, fromUser, toUser);
  }
}
