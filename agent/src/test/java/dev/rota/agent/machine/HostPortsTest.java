package dev.rota.agent.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agent.runtimes.QemuRuntime;
import dev.rota.agentapi.PortSpec;
import dev.rota.agentapi.TaskSpec;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostPortsTest {
  private static TaskSpec task(PortSpec... ports) {
    return new TaskSpec("vm", 0, "process", null, List.of("true"), Map.of(), Map.of())
        .withPorts(List.of(ports));
  }

  @Test
  void eachNamedPortGetsAPortOfTheRangeThatNoOtherTaskHoldsAndNothingListensOn() throws Exception {
    try (ServerSocket taken = new ServerSocket(24211, 1, InetAddress.getByName("127.0.0.1"))) {
      HostPorts ports = new HostPorts("127.0.0.1", 24210, 24214);
      TaskSpec other = task(new PortSpec("ssh", 22, 24210));
      TaskSpec placed =
          ports.assign(task(new PortSpec("ssh", 22), new PortSpec("web", 80)), List.of(other));
      java.util.Set<Integer> free = new java.util.HashSet<>(List.of(24212, 24213, 24214));
      int ssh = placed.ports().get(0).hostPort();
      int web = placed.ports().get(1).hostPort();
      assertTrue(
          free.contains(ssh) && free.contains(web) && ssh != web,
          "24210 is another task's, 24211 is listened on: " + placed.ports());
      assertEquals(List.of("ssh", "web"), placed.ports().stream().map(PortSpec::name).toList());
      free.remove(ssh);
      free.remove(web);
      assertEquals(
          List.of(new PortSpec("ssh", 22, free.iterator().next())),
          ports.assign(task(new PortSpec("ssh", 22)), List.of(other, placed)).ports(),
          "the one left");
      IllegalStateException full =
          assertThrows(
              IllegalStateException.class,
              () ->
                  ports.assign(
                      task(new PortSpec("one-more", 1)),
                      List.of(other, placed, task(new PortSpec("x", 1, free.iterator().next())))));
      assertTrue(
          full.getMessage().contains("24210-24214 (ROTA_AGENT_PORT_RANGE)"), full.getMessage());
    }
  }

  @Test
  void aPortAlreadyChosenIsKeptAndATaskWithoutPortsIsLeftAlone() {
    HostPorts ports = new HostPorts("127.0.0.1", 24220, 24229);
    TaskSpec adopted = task(new PortSpec("ssh", 22, 24225));
    assertEquals(adopted, ports.assign(adopted, List.of()));
    TaskSpec none = new TaskSpec("vm", 0, "process", null, List.of("true"), Map.of(), Map.of());
    assertEquals(none, ports.assign(none, List.of(adopted)));
  }

  @Test
  void aQemuGuestsPortsAreForwardedFromTheWorkersPortsOnTheTaskApisAddress() {
    assertEquals("user,model=virtio-net-pci", QemuRuntime.nic(List.of(), "0.0.0.0", null));
    assertEquals(
        "user,model=virtio-net-pci,hostfwd=tcp:10.0.0.5:24001-:22,hostfwd=tcp:10.0.0.5:24002-:8080",
        QemuRuntime.nic(
            List.of(new PortSpec("ssh", 22, 24001), new PortSpec("web", 8080, 24002)),
            "10.0.0.5",
            dev.rota.agentapi.NetworkSpec.DEFAULT));
    // A guest cut off: QEMU itself refuses every connection it would open, its ports still in.
    assertEquals(
        "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:10.0.0.5:24001-:22",
        QemuRuntime.nic(
            List.of(new PortSpec("ssh", 22, 24001)),
            "10.0.0.5",
            new dev.rota.agentapi.NetworkSpec("none", null)));
  }

  @Test
  void aRangeIsTwoPortNumbersInOrder() {
    assertThrows(IllegalArgumentException.class, () -> HostPorts.parse("127.0.0.1", "3000"));
    assertThrows(IllegalArgumentException.class, () -> HostPorts.parse("127.0.0.1", "3000-2000"));
    assertThrows(IllegalArgumentException.class, () -> HostPorts.parse("127.0.0.1", "0-10"));
    assertEquals("127.0.0.1", HostPorts.parse("127.0.0.1", " 20000-32000 ").bindHost());
  }
}
