package dev.rota.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for servers started beside each other. A port handed out for port 0 comes
 * from the kernel's ephemeral range, where the next outgoing connection may take it before the
 * server it was meant for binds it (the CLI's dev server once failed so on its HTTP port); one
 * below that range is taken only by another server asking for it by number.
 */
public final class LoopbackPorts {
  private static final int LOWEST = 10_000;

  private LoopbackPorts() {}

  /** A free loopback port below the ephemeral range. */
  public static int free() {
    int low = ephemeralLow();
    while (true) {
      int port = LOWEST + ThreadLocalRandom.current().nextInt(low - LOWEST);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (BindException taken) {
        // another one
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static int ephemeralLow() {
    // Read as a stream: Files.readString trusts the size procfs reports, and got one byte of it.
    try (InputStream in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      int low =
          Integer.parseInt(
              new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
      return low > LOWEST + 1_000 ? low : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768; // Linux's default
    }
  }
}
