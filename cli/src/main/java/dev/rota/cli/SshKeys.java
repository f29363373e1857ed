package dev.rota.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * SSH keys as a user names them: a public key file (one key a line, as {@code authorized_keys}), or
 * a private key whose {@code .pub} lies beside it, as ssh-keygen leaves them.
 */
final class SshKeys {
  private SshKeys() {}

  /** The public keys of {@code file}: its {@code .pub} when it is a private key. */
  static List<String> read(String file, String option) {
    Path path = publicKey(Path.of(file));
    try {
      List<String> keys =
          Files.readAllLines(path).stream()
              .map(String::strip)
              .filter(l -> !l.isEmpty() && !l.startsWith("#"))
              .toList();
      if (keys.isEmpty() || keys.get(0).startsWith("-----BEGIN")) {
        throw new CliException(
            ExitCodes.USAGE,
            option
                + " "
                + file
                + " holds no public key (give the .pub, or a private key beside its .pub)");
      }
      return keys;
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.USAGE, "cannot read " + option + " " + path + " (" + e.getMessage() + ")");
    }
  }

  /** The public key file for {@code file}: itself, or its {@code .pub} when that exists. */
  static Path publicKey(Path file) {
    Path pub = file.resolveSibling(file.getFileName() + ".pub");
    return !file.toString().endsWith(".pub") && Files.exists(pub) ? pub : file;
  }

  /** The private key for {@code file}, a public key's file: without its {@code .pub}, if there. */
  static String privateKey(String file) {
    if (file.endsWith(".pub")) {
      Path bare = Path.of(file.substring(0, file.length() - 4));
      return Files.exists(bare) ? bare.toString() : null;
    }
    return Files.exists(Path.of(file)) ? file : null;
  }
}
