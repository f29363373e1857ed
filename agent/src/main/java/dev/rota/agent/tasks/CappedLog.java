package dev.rota.agent.tasks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A task's log file kept within a cap, so that a chatty task or guest cannot fill the worker's
 * disk: past the cap the file keeps its last quarter, the part a person looking at a task wants
 * (what a crashing program said last), and notes what it dropped. QEMU writes a console file itself
 * (it outlives the agent), appending; the agent's own copy of a process's output appends too, so
 * either writer goes on after a cut. Bytes written while the file is being cut may be lost.
 *
 * <p>Each byte has an offset that does not change when the file is cut: the number of bytes the
 * file has dropped from its front is kept beside it ({@code stdout.log.base}), so that a reader
 * following the log asks for what follows the offset it has read to and loses nothing that is still
 * kept.
 */
public final class CappedLog {
  static final long CAP = 4L * 1024 * 1024;
  static final int KEEP = (int) (CAP / 4);

  private CappedLog() {}

  /** Cuts {@code file} to its last part if it is over the cap; the bytes dropped, or 0. */
  public static long trim(Path file) throws IOException {
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
    byte[] note =
        ("[rota-agent: " + dropped + " earlier bytes dropped at the " + CAP + " byte cap]\n")
            .getBytes(StandardCharsets.UTF_8);
    // The kept part keeps its offsets; the note takes those of bytes dropped before it.
    writeBase(file, base(file) + dropped - note.length);
    // Appended, as the writer writes: what it wrote since the cut stays, before the kept part.
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.wrap(note));
      while (tail.hasRemaining()) {
        channel.write(tail);
      }
    }
    return dropped;
  }

  /** The offset of the file's first byte. */
  static long base(Path file) {
    try {
      return Long.parseLong(Files.readString(baseOf(file)).strip());
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  /** The offset just past the file's last byte. */
  static long end(Path file) {
    try {
      return base(file) + (Files.exists(file) ? Files.size(file) : 0);
    } catch (IOException e) {
      return base(file);
    }
  }

  static Path baseOf(Path file) {
    return file.resolveSibling(file.getFileName() + ".base");
  }

  private static void writeBase(Path file, long base) throws IOException {
    Path next = file.resolveSibling(file.getFileName() + ".base.next");
    Files.writeString(next, Long.toString(base));
    Files.move(next, baseOf(file), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
