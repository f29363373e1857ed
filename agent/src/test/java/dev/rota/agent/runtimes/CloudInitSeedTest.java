package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agentapi.GuestSpec;
import dev.rota.testing.Needs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a guest's cloud-init is given on its NoCloud seed: SSH keys in the meta-data, and the user
 * data and startup script alone or as the parts of one MIME document.
 */
class CloudInitSeedTest {
  @TempDir Path dir;

  private static GuestSpec guest(String userData, List<String> keys, String script) {
    return new GuestSpec(null, null, null, userData, keys, script);
  }

  @Test
  void keysGoInTheMetaDataEachQuoted() {
    assertEquals(
        "instance-id: web.0\nlocal-hostname: web\npublic-keys:\n"
            + "  - \"ssh-ed25519 AAAAC3Nz me@laptop\"\n  - \"ssh-rsa AAAAB3 \\\"odd\\\" one\"\n",
        CloudInitSeed.metaData(
            "web.0",
            "web",
            guest(
                null,
                List.of("ssh-ed25519 AAAAC3Nz me@laptop", "ssh-rsa AAAAB3 \"odd\" one"),
                null)));
    assertEquals(
        "instance-id: web.0\nlocal-hostname: web\n",
        CloudInitSeed.metaData("web.0", "web", guest("#cloud-config\n", null, null)));
  }

  @Test
  void theUserDataIsWhatWasGivenOrTheScriptOrBothAsParts() {
    assertEquals(
        "#cloud-config\nx: 1\n",
        CloudInitSeed.userData(guest("#cloud-config\nx: 1\n", null, null), List.of()));
    assertEquals(
        "#!/bin/sh\necho hi\n", CloudInitSeed.userData(guest(null, null, "echo hi\n"), List.of()));
    assertEquals(
        "#!/bin/bash\nls\n",
        CloudInitSeed.userData(guest(null, null, "#!/bin/bash\nls\n"), List.of()));
    assertEquals(
        "#cloud-config\n",
        CloudInitSeed.userData(guest(null, List.of("ssh-ed25519 A a"), null), List.of()));
    String both =
        CloudInitSeed.userData(
            guest("#cloud-config\npackages: [nginx]\n", null, "echo hi"), List.of());
    String b = "--" + CloudInitSeed.BOUNDARY;
    assertEquals(
        "Content-Type: multipart/mixed; boundary=\""
            + CloudInitSeed.BOUNDARY
            + "\"\nMIME-Version: 1.0\n\n"
            + b
            + "\nContent-Type: text/cloud-config; charset=\"utf-8\"\nMIME-Version: 1.0\n\n"
            + "#cloud-config\npackages: [nginx]\n"
            + b
            + "\nContent-Type: text/x-shellscript; charset=\"utf-8\"\nMIME-Version: 1.0\n\n"
            + "#!/bin/sh\necho hi\n"
            + b
            + "--\n",
        both);
  }

  @Test
  void aVolumeWithAMountPathIsFormattedWhenBlankAndMountedByItsSerialBetweenTheOtherParts() {
    List<dev.rota.agentapi.VolumeSpec> volumes =
        List.of(
            new dev.rota.agentapi.VolumeSpec("cache-v3", "cache", 10, "/var/cache/ci", null),
            new dev.rota.agentapi.VolumeSpec("raw-v4", "raw", 1, null, null));
    String mounts =
        "#cloud-config\n"
            + "fs_setup:\n"
            + "  - device: \"/dev/disk/by-id/virtio-cache\"\n"
            + "    partition: none\n"
            + "    filesystem: ext4\n"
            + "    overwrite: false\n"
            + "mounts:\n"
            + "  - [\"/dev/disk/by-id/virtio-cache\", \"/var/cache/ci\", \"ext4\","
            + " \"defaults,nofail\", \"0\", \"2\"]\n";
    assertEquals(mounts, CloudInitSeed.userData(guest(null, null, null), volumes));
    assertTrue(CloudInitSeed.seeded(guest(null, null, null), volumes), "a seed for the mounts");
    assertFalse(
        CloudInitSeed.seeded(guest(null, null, null), volumes.subList(1, 2)),
        "a volume the guest mounts itself needs no seed");
    String all = CloudInitSeed.userData(guest("#cloud-config\nx: 1\n", null, "echo hi"), volumes);
    String b = "--" + CloudInitSeed.BOUNDARY;
    assertEquals(
        List.of("#cloud-config\nx: 1\n", mounts, "#!/bin/sh\necho hi\n"),
        java.util.Arrays.stream(all.split(java.util.regex.Pattern.quote(b)))
            .skip(1)
            .filter(p -> !p.startsWith("--"))
            .map(p -> p.substring(p.indexOf("\n\n") + 2))
            .toList(),
        "the given user data, the mounts, then the script");
  }

  @Test
  void theSeedIsAFatDiskLabelledCidataHoldingBoth() throws Exception {
    Path seed;
    try {
      seed =
          CloudInitSeed.write(
              dir,
              "web.0",
              "web",
              guest(null, List.of("ssh-ed25519 AAAA k"), "echo hi"),
              List.of());
    } catch (java.io.IOException e) {
      Needs.missing(
          "no dosfstools or mtools here (" + e.getMessage() + "): .ci/qemu installs them");
      return;
    }
    assertEquals("#!/bin/sh\necho hi", read(seed, "user-data"));
    assertTrue(read(seed, "meta-data").contains("public-keys:\n  - \"ssh-ed25519 AAAA k\""));
    Process label = new ProcessBuilder("mlabel", "-s", "-i", seed.toString(), "::").start();
    assertTrue(
        new String(label.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
            .contains("CIDATA"));
  }

  private static String read(Path image, String file) throws Exception {
    Process p = new ProcessBuilder("mtype", "-i", image.toString(), "::/" + file).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return text.strip();
  }
}
