package dev.rota.agent.runtimes;

import dev.rota.agent.machine.Tools;
import dev.rota.agentapi.GuestSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A NoCloud seed disk for cloud-init: a small FAT file system labelled {@code CIDATA} holding the
 * VM's {@code user-data} and a {@code meta-data} naming the instance, made with dosfstools and
 * mtools (no mount, no root needed). A guest that runs cloud-init takes its SSH keys from the
 * meta-data's {@code public-keys} (the default user's), and its user data and startup script from
 * the user data: the one given alone, or both as parts of one MIME multipart document.
 */
final class CloudInitSeed {
  private CloudInitSeed() {}

  /** The boundary between the parts of a user data that has several. */
  static final String BOUNDARY = "==rota-cloud-init==";

  /** Writes {@code dir/seed.img}; an {@link IOException} says in one line what is missing. */
  static Path write(Path dir, String instanceId, String hostname, GuestSpec guest)
      throws IOException {
    Path files = dir.resolve("seed");
    Files.createDirectories(files);
    try {
      return image(dir, files, instanceId, hostname, guest);
    } finally {
      // The user data may be a secret's value: it stays in the guest's seed disk alone.
      Files.deleteIfExists(files.resolve("user-data"));
      Files.deleteIfExists(files.resolve("meta-data"));
      Files.deleteIfExists(files);
    }
  }

  private static Path image(
      Path dir, Path files, String instanceId, String hostname, GuestSpec guest)
      throws IOException {
    String userData = userData(guest);
    Files.writeString(files.resolve("user-data"), userData, StandardCharsets.UTF_8);
    Files.writeString(
        files.resolve("meta-data"), metaData(instanceId, hostname, guest), StandardCharsets.UTF_8);
    Path image = dir.resolve("seed.img");
    Files.deleteIfExists(image);
    long kib = Math.max(1024, (userData.getBytes(StandardCharsets.UTF_8).length / 1024) * 2 + 512);
    Tools.run(
        List.of("mkfs.vfat", "-n", "CIDATA", "-C", image.toString(), Long.toString(kib)),
        "user data needs mkfs.vfat (dosfstools) on the worker");
    Tools.run(
        List.of(
            "mcopy",
            "-i",
            image.toString(),
            files.resolve("user-data").toString(),
            files.resolve("meta-data").toString(),
            "::/"),
        "user data needs mcopy (mtools) on the worker");
    return image;
  }

  /** The instance, its host name and the SSH keys, in YAML (each key a quoted JSON string). */
  static String metaData(String instanceId, String hostname, GuestSpec guest) {
    StringBuilder meta =
        new StringBuilder("instance-id: " + instanceId + "\nlocal-hostname: " + hostname + "\n");
    List<String> keys = guest.sshKeys() == null ? List.of() : guest.sshKeys();
    if (!keys.isEmpty()) {
      meta.append("public-keys:\n");
      keys.forEach(k -> meta.append("  - ").append(quoted(k.strip())).append('\n'));
    }
    return meta.toString();
  }

  /**
   * The user data: as given, or the startup script alone, or both as a MIME multipart document
   * (cloud-init runs each part by its type); a bare {@code #cloud-config} when there are only keys.
   */
  static String userData(GuestSpec guest) {
    String given = guest.userData();
    String script = guest.startupScript();
    if (script != null && !script.startsWith("#!")) {
      script = "#!/bin/sh\n" + script;
    }
    if (script == null) {
      return given != null ? given : "#cloud-config\n";
    }
    if (given == null) {
      return script;
    }
    return "Content-Type: multipart/mixed; boundary=\""
        + BOUNDARY
        + "\"\nMIME-Version: 1.0\n\n"
        + part(given.startsWith("#!") ? "text/x-shellscript" : "text/cloud-config", given)
        + part("text/x-shellscript", script)
        + "--"
        + BOUNDARY
        + "--\n";
  }

  private static String part(String type, String body) {
    return "--"
        + BOUNDARY
        + "\nContent-Type: "
        + type
        + "; charset=\"utf-8\"\nMIME-Version: 1.0\n\n"
        + body
        + (body.endsWith("\n") ? "" : "\n");
  }

  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
