package dev.rota.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The host keys of the guests {@code rota vm ssh} logged in to, in a known_hosts file of Rota's own
 * beside its config (the user's own is left alone). Each is kept under an alias of one submission
 * of a VM, {@code rota-vm-NAME-CREATED} (when it was created, in milliseconds): a VM deleted and
 * made again under its name is a new machine with a new key, not an attack, and the entries of its
 * earlier submissions are dropped before ssh runs. A submission's first key is taken as it comes
 * (ssh's {@code accept-new}, so that a script's first ssh works); a changed key of the same
 * submission is refused, as ssh refuses any.
 */
final class GuestHostKeys {
  private GuestHostKeys() {}

  static Path file(Map<String, String> env) {
    return Contexts.file(env).resolveSibling("known_hosts");
  }

  static String alias(String vm, Instant created) {
    return prefix(vm) + created.toEpochMilli();
  }

  private static String prefix(String vm) {
    return "rota-vm-" + vm + "-";
  }

  /** Drops the keys of {@code vm}'s other submissions than {@code alias}'s. */
  static void forgetOthers(Path file, String vm, String alias) throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    List<String> lines = Files.readAllLines(file);
    List<String> kept =
        lines.stream()
            .filter(
                line -> {
                  String host = line.split("[ \t]", 2)[0];
                  return !host.startsWith(prefix(vm))
                      || host.equals(alias)
                      // another VM whose name only begins with this one's (web, web-2): its
                      // alias ends in a number after this prefix, and more
                      || !host.substring(prefix(vm).length()).matches("[0-9]+");
                })
            .toList();
    if (kept.size() != lines.size()) {
      Path part = file.resolveSibling(file.getFileName() + ".part");
      Files.write(part, kept);
      Files.move(part, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
