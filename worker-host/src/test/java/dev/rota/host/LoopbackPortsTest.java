package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void aPortIsFreeAndBelowTheEphemeralRange() throws Exception {
    int low;
    try (InputStream in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      low =
          Integer.parseInt(
              new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
    }
    for (int i = 0; i < 20; i++) {
      int port = LoopbackPorts.free();
      assertTrue(port >= 10_000 && port < low, port + " not in [10000, " + low + ")");
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertTrue(s.isBound());
      }
    }
  }
}
