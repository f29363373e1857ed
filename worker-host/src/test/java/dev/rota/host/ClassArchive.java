package dev.rota.host;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The AppCDS archive of one shipped jar for these tests' processes, as {@code bin/rota} keeps one
 * for the host: the first process of the jar that gets to train writes the archive when it exits,
 * and every later process maps its classes instead of loading them (a dev host starts on about half
 * the CPU). The file system is the only state, so the two test JVMs share one archive per jar
 * build; a process that dies without writing it lets the next one train.
 */
final class ClassArchive {
  private final Path archive;
  private final Path lock;
  private final Path draft;

  private ClassArchive(Path archive) {
    this.archive = archive;
    this.lock = archive.resolveSibling(archive.getFileName() + ".lock");
    this.draft =
        archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid());
  }

  /** The archive of {@code jar} as built now: a rebuilt jar gets an archive of its own. */
  static ClassArchive of(Path jar) {
    try {
      Path folder = Files.createDirectories(Path.of("target", "class-archives").toAbsolutePath());
      String build = Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis();
      return new ClassArchive(folder.resolve(jar.getFileName() + "-" + build + ".jsa"));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + jar, e);
    }
  }

  /** A launch of the jar: its java options, and whether it is the one writing the archive. */
  record Launch(List<String> options, boolean trains) {}

  Launch launch() {
    // Quiet either way: a missing or stale archive only means classes load as they would without
    // it.
    if (Files.exists(archive)) {
      return new Launch(
          List.of("-Xshare:auto", "-Xlog:cds*=off", "-XX:SharedArchiveFile=" + archive), false);
    }
    try {
      Files.createFile(lock);
    } catch (FileAlreadyExistsException e) {
      return new Launch(List.of(), false); // another process is writing it
    } catch (IOException e) {
      throw new IllegalStateException("cannot lock " + lock, e);
    }
    return new Launch(List.of("-Xlog:cds*=off", "-XX:ArchiveClassesAtExit=" + draft), true);
  }

  /** After a training process has ended: keeps what it wrote, and lets another train if nothing. */
  void trained() {
    try {
      if (Files.exists(draft) && Files.size(draft) > 0) {
        Files.move(draft, archive, StandardCopyOption.ATOMIC_MOVE);
      }
      Files.deleteIfExists(draft);
      Files.deleteIfExists(lock);
    } catch (IOException e) {
      throw new IllegalStateException("cannot keep the class archive " + archive, e);
    }
  }
}
