package dev.rota.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A VM's console file kept within the cap a process's log has ({@link BoundedLog#CAP}), so a chatty
 * guest cannot fill the worker's disk. QEMU writes the file itself (it outlives the agent),
 * appending; past the cap the agent keeps its last quarter, the part a person looking at a running
 * VM wants, and notes what it dropped. Bytes the guest writes while the file is being cut may be
 * lost.
 */
final class ConsoleLog {
  static final long CAP = BoundedLog.CAP;
  static final int KEEP = (int) (CAP / 4);

  private ConsoleLog() {}

  /** Cuts {@code file} to its last part if it is over the cap; the bytes dropped, or 0. */
  static long trim(Path file) throws IOException {
    long size = Files.exists(file) ? Files.size(file) : 0;
    if (size <= CAP) {
      return 0;
    }
    ByteBuffer tail = ByteBuffer.allocate(KEEP);
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long from = size - KEEP;
      while (tail.hasRemaining() && channel.read(tail, from + tail.position()) > 0) {
        // read on until the kept part is whole
      }
      channel.truncate(0);
    }
    tail.flip();
    long dropped = size - tail.remaining();
    // Appended, as QEMU writes: what it wrote since the cut stays, before the kept part.
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      channel.write(
          ByteBuffer.wrap(
              ("[rota-agent: "
                      + dropped
                      + " earlier bytes of the console dropped at the "
                      + CAP
                      + " byte cap]\n")
                  .getBytes(StandardCharsets.UTF_8)));
      while (tail.hasRemaining()) {
        channel.write(tail);
      }
    }
    return dropped;
  }
}
