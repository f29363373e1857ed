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
 * the user data: the one given alone, or both as parts of one MIME multipart document. A data
 * volume with a mount path adds a part of Rota's own that formats it (when blank) and mounts it.
 */
final class CloudInitSeed {
  private CloudInitSeed() {}

  /** The boundary between the parts of a user data that has several. */
  static final String BOUNDARY = "==rota-cloud-init==";

  /** Writes {@code dir/seed.img}; an {@link IOException} says in one line what is missing. */
  static Path write(
      Path dir,
      String instanceId,
      String hostname,
      GuestSpec guest,
      List<dev.rota.agentapi.VolumeSpec> volumes)
      throws IOException {
    Path files = dir.resolve("seed");
    Files.createDirectories(files);
    try {
      return image(dir, files, instanceId, hostname, guest, volumes);
    } finally {
      // The user data may be a secret's value: it stays in the guest's seed disk alone.
      Files.deleteIfExists(files.resolve("user-data"));
      Files.deleteIfExists(files.resolve("meta-data"));
      Files.deleteIfExists(files);
    }
  }

  private static Path image(
      Path dir,
      Path files,
      String instanceId,
      String hostname,
      GuestSpec guest,
      List<dev.rota.agentapi.VolumeSpec> volumes)
      throws IOException {
    String userData = userData(guest, volumes);
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

  /** Whether the guest gets a seed: it has user data or keys, or a volume to mount. */
  static boolean seeded(GuestSpec guest, List<dev.rota.agentapi.VolumeSpec> volumes) {
    return guest.seeded() || volumes.stream().anyMatch(v -> v.mountPath() != null);
  }

  /**
   * The user data: as given, or the startup script alone, or each of the given user data, the
   * volumes' mounts and the startup script as parts of a MIME multipart document (cloud-init runs
   * each part by its type); a bare {@code #cloud-config} when there are only keys.
   */
  static String userData(GuestSpec guest, List<dev.rota.agentapi.VolumeSpec> volumes) {
    String given = guest.userData();
    String script = guest.startupScript();
    if (script != null && !script.startsWith("#!")) {
      script = "#!/bin/sh\n" + script;
    }
    List<String> parts = new java.util.ArrayList<>();
    if (given != null) {
      parts.add(given);
    }
    String mounts = mounts(volumes);
    if (mounts != null) {
      parts.add(mounts);
    }
    if (script != null) {
      parts.add(script);
    }
    if (parts.isEmpty()) {
      return "#cloud-config\n";
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    StringBuilder multipart =
        new StringBuilder(
            "Content-Type: multipart/mixed; boundary=\"" + BOUNDARY + "\"\nMIME-Version: 1.0\n\n");
    for (String body : parts) {
      multipart.append(
          part(body.startsWith("#!") ? "text/x-shellscript" : "text/cloud-config", body));
    }
    return multipart.append("--").append(BOUNDARY).append("--\n").toString();
  }

  /**
   * Cloud-init's configuration that mounts each volume with a mount path, found by its serial:
   * formatted ext4 first when it holds no file system yet (never when it does), and mounted with
   * {@code nofail}, so that a guest boots even without it. Null when no volume has a mount path.
   */
  static String mounts(List<dev.rota.agentapi.VolumeSpec> volumes) {
    List<dev.rota.agentapi.VolumeSpec> mounted =
        volumes.stream().filter(v -> v.mountPath() != null).toList();
    if (mounted.isEmpty()) {
      return null;
    }
    StringBuilder setup = new StringBuilder("#cloud-config\nfs_setup:\n");
    StringBuilder mounts = new StringBuilder("mounts:\n");
    for (dev.rota.agentapi.VolumeSpec v : mounted) {
      String device = quoted("/dev/disk/by-id/virtio-" + v.name());
      setup
          .append("  - device: ")
          .append(device)
          .append("\n    partition: none\n    filesystem: ext4\n    overwrite: false\n");
      mounts
          .append("  - [")
          .append(device)
          .append(", ")
          .append(quoted(v.mountPath()))
          .append(", \"ext4\", \"defaults,nofail\", \"0\", \"2\"]\n");
    }
    return setup.append(mounts).toString();
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
