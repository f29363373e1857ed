package dev.rota.agent.tasks;

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

class CappedLogTest {
  @TempDir Path dir;

  @Test
  void aConsoleWithinItsCapIsLeftAsItIs() throws Exception {
    Path console = dir.resolve("stdout.log");
    Files.writeString(console, "ROTA-GUEST-UP cpus=1\n");
    assertEquals(0, CappedLog.trim(console));
    assertEquals("ROTA-GUEST-UP cpus=1\n", Files.readString(console));
    assertEquals(0, CappedLog.trim(dir.resolve("none.log")), "a VM that has printed nothing yet");
  }

  @Test
  void pastItsCapAConsoleKeepsItsLastPartSayingWhatWasDroppedAndTakesAppendsOnAfterIt()
      throws Exception {
    Path console = dir.resolve("stdout.log");
    byte[] early = new byte[(int) CappedLog.CAP];
    Arrays.fill(early, (byte) 'a');
    byte[] late = new byte[CappedLog.KEEP];
    Arrays.fill(late, (byte) 'z');
    Files.write(console, early);
    Files.write(console, late, StandardOpenOption.APPEND);

    assertEquals(CappedLog.CAP, CappedLog.trim(console));

    // QEMU appends on (its chardev is append=on) after the cut.
    Files.writeString(console, "Kernel panic - not syncing\n", StandardOpenOption.APPEND);
    byte[] kept = Files.readAllBytes(console);
    String text = new String(kept, StandardCharsets.ISO_8859_1);
    assertTrue(
        text.startsWith("[rota-agent: " + CappedLog.CAP + " earlier bytes dropped at the "),
        text.substring(0, 80));
    int body = text.indexOf('\n') + 1;
    assertArrayEquals(
        late, Arrays.copyOfRange(kept, body, body + late.length), "the last part, whole");
    assertTrue(
        text.endsWith("zKernel panic - not syncing\n"), "what the guest wrote next follows it");
    assertTrue(kept.length < CappedLog.CAP, kept.length + " bytes");
  }

  @Test
  void aCutKeepsTheOffsetsOfWhatItKeeps() throws Exception {
    Path log = dir.resolve("stdout.log");
    byte[] early = new byte[(int) CappedLog.CAP];
    Arrays.fill(early, (byte) 'a');
    Files.write(log, early);
    Files.writeString(log, "last line\n", StandardOpenOption.APPEND);
    long end = CappedLog.end(log);
    assertEquals(CappedLog.CAP + 10, end);

    CappedLog.trim(log);

    assertEquals(end, CappedLog.end(log), "the end is where it was");
    long base = CappedLog.base(log);
    assertTrue(base > 0, "the front's offsets are gone");
    byte[] kept = Files.readAllBytes(log);
    assertEquals(
        "last line\n",
        new String(kept, (int) (end - 10 - base), 10, StandardCharsets.ISO_8859_1),
        "a kept byte is found at its old offset");
  }
}
