package dev.rota.agent.tasks;

import dev.rota.agentapi.LogQuery;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * What tasks wrote to stdout and stderr, while they run and after: a task's logs outlive its
 * removal (a crashed program's last words are what its user needs most), kept for the last {@link
 * #KEPT_GENERATIONS} generations of each VM until the controller says the VM is gone.
 *
 * <p>A read names where to begin: an offset ({@link CappedLog}), a time, or a number of lines from
 * the end. Times come from samples of each live log's end, taken every second: the bytes after a
 * time are those past the end the last sample before it saw.
 */
public final class TaskLogs {
  public static final List<String> STREAMS = LogQuery.STREAMS;

  /** The generations of one VM whose logs are kept: the last one and the one before it. */
  static final int KEPT_GENERATIONS = 2;

  /** The most one read returns: more than a capped log holds. */
  static final int MAX_READ = (int) (CappedLog.CAP + CappedLog.KEEP);

  /** Past this, a log's time samples keep their newer half. */
  static final long MAX_SAMPLES_BYTES = 256 * 1024;

  /** What was read, the offset that follows it, and whether the task may still write. */
  public record Chunk(byte[] bytes, long next, boolean live) {}

  /**
   * How long logs are kept at most: those of a VM deleted while this worker could not hear of it go
   * after this.
   */
  static final java.time.Duration KEPT_AT_MOST = java.time.Duration.ofDays(7);

  private final Path keptDir;
  private final Map<Path, Long> sampledSizes = new ConcurrentHashMap<>();

  /**
   * VMs deleted whose tasks may still be here: the removal of such a task, which can come after the
   * VM's deletion (an ended task waits for the next term's reconciliation), keeps nothing.
   */
  private final Set<String> forgotten = ConcurrentHashMap.newKeySet();

  public TaskLogs(Path keptDir) {
    this.keptDir = keptDir;
  }

  /** Reads the logs in {@code dir}; {@code live} is judged before, so the read holds its end. */
  Chunk read(Path dir, LogQuery ask, boolean live) throws IOException {
    Path file = dir.resolve(ask.stream() + ".log");
    for (int attempt = 0; ; attempt++) {
      long base = CappedLog.base(file);
      if (!Files.exists(file)) {
        return new Chunk(new byte[0], ask.from() == null ? base : Math.max(base, ask.from()), live);
      }
      try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
        long size = f.length();
        long end = base + size;
        long start = base;
        if (ask.from() != null) {
          start = Math.max(start, Math.min(ask.from(), end));
        }
        if (ask.since() != null) {
          start = Math.max(start, Math.min(offsetAt(file, ask.since()), end));
        }
        if (ask.tailLines() != null) {
          start = Math.max(start, base + lastLines(f, size, ask.tailLines()));
        }
        long stop = Math.min(end, start + MAX_READ);
        byte[] bytes = new byte[(int) (stop - start)];
        f.seek(start - base);
        f.readFully(bytes);
        // A cut while reading moved the bytes under the offsets: read again.
        if (CappedLog.base(file) == base || attempt == 3) {
          return new Chunk(bytes, stop, live);
        }
      }
    }
  }

  /** Notes where each of the logs in {@code dir} ends at {@code now}, if it moved. */
  void sample(Path dir, Instant now) {
    for (String stream : STREAMS) {
      Path file = dir.resolve(stream + ".log");
      long size;
      try {
        size = Files.size(file);
      } catch (IOException e) {
        continue; // nothing written yet
      }
      // Every task, every second: the size alone tells whether the log moved (a cut changes it
      // too), and only then is its base read for the end's offset.
      Long before = sampledSizes.put(file, size);
      if (before != null && before == size) {
        continue;
      }
      long end = CappedLog.base(file) + size;
      Path samples = samplesOf(file);
      try {
        Files.writeString(
            samples,
            now.toEpochMilli() + " " + end + "\n",
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        if (Files.size(samples) > MAX_SAMPLES_BYTES) {
          List<String> lines = Files.readAllLines(samples);
          Files.write(samples, lines.subList(lines.size() / 2, lines.size()));
        }
      } catch (IOException e) {
        // a full disk, or the folder went with its task: a time bound is then the less exact
      }
    }
  }

  /** Whether {@code vm} was deleted (and no task of a VM of its name placed here since). */
  boolean forgotten(String vm) {
    return forgotten.contains(vm);
  }

  /** A task of {@code vm} was placed here: its VM is one to keep logs of. */
  void placed(String vm) {
    forgotten.remove(vm);
  }

  /** Keeps the logs of task {@code id} from its folder, which is about to go. */
  void keep(String id, Path dir) {
    String vm = vmOf(id);
    dropOlderThan(Instant.now().minus(KEPT_AT_MOST));
    if (forgotten.contains(vm)) {
      return;
    }
    Path kept = keptDir.resolve(id);
    try {
      Files.createDirectories(kept);
      for (String stream : STREAMS) {
        Path file = dir.resolve(stream + ".log");
        sampledSizes.remove(file);
        for (Path p : List.of(file, CappedLog.baseOf(file), samplesOf(file))) {
          if (Files.exists(p)) {
            Files.move(p, kept.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    } catch (IOException e) {
      return; // a full disk: the logs go with the task's folder
    }
    List<Path> generations = generations(vm);
    generations.stream()
        .sorted(Comparator.comparingInt(TaskLogs::generationOf).reversed())
        .skip(KEPT_GENERATIONS)
        .forEach(TaskLogs::delete);
  }

  /** The folder of task {@code id}'s kept logs; null when none are kept. */
  Path kept(String id) {
    Path dir = keptDir.resolve(id);
    return Files.isDirectory(dir) ? dir : null;
  }

  /** Drops the kept logs of every generation of {@code vm}, and any its tasks leave later. */
  void forget(String vm) {
    forgotten.add(vm);
    generations(vm).forEach(TaskLogs::delete);
  }

  private void dropOlderThan(Instant limit) {
    if (!Files.isDirectory(keptDir)) {
      return;
    }
    try (Stream<Path> dirs = Files.list(keptDir)) {
      dirs.filter(
              d -> {
                try {
                  return Files.getLastModifiedTime(d).toInstant().isBefore(limit);
                } catch (IOException e) {
                  return false;
                }
              })
          .forEach(TaskLogs::delete);
    } catch (IOException e) {
      // nothing kept yet
    }
  }

  private List<Path> generations(String vm) {
    if (!Files.isDirectory(keptDir)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(keptDir)) {
      return dirs.filter(d -> vmOf(d.getFileName().toString()).equals(vm)).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /**
   * The offset past what was written by {@code since}: the end the last sample at or before it saw.
   */
  private static long offsetAt(Path file, Instant since) {
    long at = 0;
    Path samples = samplesOf(file);
    if (!Files.exists(samples)) {
      return at;
    }
    try (Stream<String> lines = Files.lines(samples, StandardCharsets.UTF_8)) {
      for (String line : (Iterable<String>) lines::iterator) {
        int space = line.indexOf(' ');
        if (space < 0) {
          continue;
        }
        if (Long.parseLong(line.substring(0, space)) > since.toEpochMilli()) {
          break;
        }
        at = Long.parseLong(line.substring(space + 1).strip());
      }
    } catch (IOException | RuntimeException e) {
      // unreadable samples: from the start
    }
    return at;
  }

  /** Where in the file its last {@code n} lines begin (a last line not yet ended counts). */
  private static long lastLines(RandomAccessFile f, long size, int n) throws IOException {
    if (n <= 0) {
      return size;
    }
    long pos = size;
    int found = 0;
    byte[] buffer = new byte[8192];
    boolean skipFinalNewline = true;
    while (pos > 0) {
      int len = (int) Math.min(buffer.length, pos);
      pos -= len;
      f.seek(pos);
      f.readFully(buffer, 0, len);
      for (int i = len - 1; i >= 0; i--) {
        if (skipFinalNewline) {
          skipFinalNewline = false;
          if (pos + i == size - 1 && buffer[i] == '\n') {
            continue;
          }
        }
        if (buffer[i] == '\n' && ++found == n) {
          return pos + i + 1;
        }
      }
    }
    return 0;
  }

  private static Path samplesOf(Path file) {
    return file.resolveSibling(file.getFileName() + ".times");
  }

  static String vmOf(String taskId) {
    int dot = taskId.lastIndexOf('.');
    return dot < 0 ? taskId : taskId.substring(0, dot);
  }

  private static int generationOf(Path dir) {
    String id = dir.getFileName().toString();
    try {
      return Integer.parseInt(id.substring(id.lastIndexOf('.') + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static void delete(Path dir) {
    try {
      dev.rota.agent.machine.Folders.delete(dir);
    } catch (IOException e) {
      // gone already
    }
  }
}
