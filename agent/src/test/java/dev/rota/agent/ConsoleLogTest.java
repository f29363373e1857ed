package dev.rota.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsoleLogTest {
  @TempDir Path dir;

  @Test
  void aConsoleWithinItsCapIsLeftAsItIs() throws Exception {
    Path console = dir.resolve("stdout.log");
    Files.writeString(console, "ROTA-GUEST-UP cpus=1\n");
    assertEquals(0, ConsoleLog.trim(console));
    assertEquals("ROTA-GUEST-UP cpus=1\n", Files.readString(console));
    assertEquals(0, ConsoleLog.trim(dir.resolve("none.log")), "a VM that has printed nothing yet");
  }

  @Test
  void pastItsCapAConsoleKeepsItsLastPartSayingWhatWasDroppedAndTakesAppendsOnAfterIt()
      throws Exception {
    Path console = dir.resolve("stdout.log");
    byte[] early = new byte[(int) ConsoleLog.CAP];
    Arrays.fill(early, (byte) 'a');
    byte[] late = new byte[ConsoleLog.KEEP];
    Arrays.fill(late, (byte) 'z');
    Files.write(console, early);
    Files.write(console, late, StandardOpenOption.APPEND);

    assertEquals(ConsoleLog.CAP, ConsoleLog.trim(console));

    // QEMU appends on (its chardev is append=on) after the cut.
    Files.writeString(console, "Kernel panic - not syncing\n", StandardOpenOption.APPEND);
    byte[] kept = Files.readAllBytes(console);
    String text = new String(kept, StandardCharsets.ISO_8859_1);
    assertTrue(
        text.startsWith(
            "[rota-agent: " + ConsoleLog.CAP + " earlier bytes of the console dropped at the "),
        text.substring(0, 80));
    int body = text.indexOf('\n') + 1;
    assertArrayEquals(
        late, Arrays.copyOfRange(kept, body, body + late.length), "the last part, whole");
    assertTrue(
        text.endsWith("zKernel panic - not syncing\n"), "what the guest wrote next follows it");
    assertTrue(kept.length < ConsoleLog.CAP, kept.length + " bytes");
  }
}
