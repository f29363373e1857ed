package dev.rota.host;

import static dev.rota.host.NetworkNamespace.ip;
import static dev.rota.host.NetworkNamespace.must;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The world a worker in network namespace {@code worker} sees, made of namespaces of this test's
 * and nothing else: a second namespace behind the worker's ({@code 198.51.100.1}, the worker {@code
 * .2}) that holds a cloud's metadata address ({@code 169.254.169.254}), two public addresses
 * ({@code 203.0.113.7} and {@code .8}) and two private ones ({@code 10.99.0.1} and {@code .2}),
 * each with a {@link Listeners} server that answers its name; and one more on the worker's own
 * loopback. No packet of it leaves the machine.
 */
final class GuestInternet implements AutoCloseable {
  static final String METADATA = "169.254.169.254:80";
  static final String PUBLIC = "203.0.113.7:8080";
  static final String OTHER_PUBLIC = "203.0.113.8:8080";
  static final String PRIVATE_ALLOWED = "10.99.0.1:8080";
  static final String PRIVATE = "10.99.0.2:8080";

  private final String name;
  private final String inWorker;
  private final List<Process> listeners = new ArrayList<>();

  private GuestInternet(String name, String inWorker) {
    this.name = name;
    this.inWorker = inWorker;
  }

  /** The world around {@code worker}, with a server on its loopback at {@code loopbackPort}. */
  static GuestInternet around(String worker, int loopbackPort) {
    String suffix = worker.substring(worker.lastIndexOf('-') + 1);
    GuestInternet net = new GuestInternet(worker + "-x", "gw" + suffix);
    must(ip("netns", "add", net.name));
    try {
      must(ip("link", "add", net.inWorker, "type", "veth", "peer", "name", "gx" + suffix));
      must(ip("link", "set", net.inWorker, "netns", worker));
      must(ip("link", "set", "gx" + suffix, "netns", net.name));
      in(worker, "ip", "addr", "add", "198.51.100.2/24", "dev", net.inWorker);
      in(worker, "ip", "link", "set", net.inWorker, "up");
      for (String routed : List.of("169.254.169.254/32", "203.0.113.0/24", "10.99.0.0/24")) {
        in(worker, "ip", "route", "add", routed, "via", "198.51.100.1");
      }
      in(net.name, "ip", "addr", "add", "198.51.100.1/24", "dev", "gx" + suffix);
      in(net.name, "ip", "link", "set", "gx" + suffix, "up");
      in(net.name, "ip", "link", "set", "lo", "up");
      for (String held :
          List.of(
              "169.254.169.254/32",
              "203.0.113.7/32",
              "203.0.113.8/32",
              "10.99.0.1/32",
              "10.99.0.2/32")) {
        in(net.name, "ip", "addr", "add", held, "dev", "lo");
      }
      net.listen(
          net.name,
          List.of(
              METADATA + ":metadata",
              PUBLIC + ":public",
              OTHER_PUBLIC + ":other-public",
              PRIVATE_ALLOWED + ":private-allowed",
              PRIVATE + ":private"));
      net.listen(worker, List.of("127.0.0.1:" + loopbackPort + ":worker-loopback"));
      return net;
    } catch (RuntimeException | IOException e) {
      net.close();
      throw new IllegalStateException("cannot make the guests' world: " + e.getMessage(), e);
    }
  }

  private void listen(String namespace, List<String> servers) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "ip",
                "netns",
                "exec",
                namespace,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Listeners.class.getName()));
    command.addAll(servers);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    listeners.add(p);
    String first =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
            .readLine();
    if (!"listening".equals(first)) {
      throw new IOException("the servers in " + namespace + " did not start: " + first);
    }
  }

  private static void in(String namespace, String... command) {
    List<String> args = new ArrayList<>(List.of("netns", "exec", namespace));
    args.addAll(List.of(command));
    must(ip(args.toArray(String[]::new)));
  }

  @Override
  public void close() {
    listeners.forEach(
        p -> {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        });
    ip("netns", "delete", name);
  }
}
