package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.agent.tasks.Refusal;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exec in a qemu guest that cannot run it says why (a guest that does run the guest agent is in
 * {@link QemuRuntimeTest}).
 */
class GuestAgentTest {
  @TempDir Path dir;

  @Test
  void aGuestWithoutAnAgentIsRefusedSayingWhatItNeeds() throws Exception {
    // QEMU's end of the guest agent's port: it accepts, and nothing in the guest answers.
    try (ServerSocketChannel port = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      java.nio.file.Files.createDirectories(GuestFiles.folder(dir));
      port.bind(UnixDomainSocketAddress.of(GuestFiles.guestAgent(dir)));
      Refusal refused =
          assertThrows(
              Refusal.class, () -> new GuestAgent().exec("vm.0", dir, List.of("uname", "-a")));
      assertEquals(409, refused.status());
      assertEquals(
          "the guest of task vm.0 has no agent answering: exec in a qemu VM needs the QEMU guest"
              + " agent (qemu-guest-agent) running in its image",
          refused.getMessage());
    }
  }

  @Test
  void aVmStartedWithoutTheAgentsPortIsRefused() {
    Refusal refused =
        assertThrows(Refusal.class, () -> new GuestAgent().exec("vm.0", dir, List.of("true")));
    assertEquals(409, refused.status());
    assertEquals("vm task vm.0 was started without a guest agent port", refused.getMessage());
  }
}
