package dev.rota.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A NoCloud seed disk for cloud-init: a small FAT file system labelled {@code CIDATA} holding the
 * VM's {@code user-data} and a {@code meta-data} naming the instance, made with dosfstools and
 * mtools (no mount, no root needed). A guest that runs cloud-init takes its startup script and SSH
 * keys from it.
 */
final class CloudInitSeed {
  private CloudInitSeed() {}

  /** Writes {@code dir/seed.img}; an {@link IOException} says in one line what is missing. */
  static Path write(Path dir, String instanceId, String hostname, String userData)
      throws IOException {
    Path files = dir.resolve("seed");
    Files.createDirectories(files);
    Files.writeString(files.resolve("user-data"), userData, StandardCharsets.UTF_8);
    Files.writeString(
        files.resolve("meta-data"),
        "instance-id: " + instanceId + "\nlocal-hostname: " + hostname + "\n",
        StandardCharsets.UTF_8);
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
}
