package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a closing agent leaves of its control groups, on hierarchies mounted in a folder. */
class CgroupsRemovalTest {
  @TempDir Path root;

  private Cgroups mounted() throws Exception {
    Path memory = Files.createDirectories(root.resolve("memory"));
    Path cpu = Files.createDirectories(root.resolve("cpu"));
    Path mountinfo = root.resolve("mountinfo");
    Files.writeString(
        mountinfo,
        "35 31 0:32 / "
            + memory
            + " rw,relatime - cgroup cgroup rw,memory\n"
            + "32 31 0:29 / "
            + cpu
            + " rw,relatime - cgroup cgroup rw,cpu\n");
    Cgroups groups = Cgroups.detect(mountinfo, "w-1");
    assertEquals(Cgroups.Kind.V1, groups.kind(), groups.reason());
    return groups;
  }

  @Test
  void aHeldTasksEmptyGroupStaysForItsProcessToJoinAndAnEndedTasksGoes() throws Exception {
    Cgroups groups = mounted();
    // No limits: the groups stay empty folders, as a real group is before its process joins it.
    List<Path> starting = groups.create("a.0", 0, 0);
    groups.create("b.0", 0, 0);

    groups.removeUnheld(id -> id.equals("a.0"));

    for (Path procs : starting) {
      assertTrue(Files.isDirectory(procs.getParent()), "the starting task's group: " + procs);
    }
    assertFalse(Files.exists(root.resolve("memory/rota/w-1/b.0")), "an ended task's group");
    assertFalse(Files.exists(root.resolve("cpu/rota/w-1/b.0")), "an ended task's group");
    assertTrue(Files.isDirectory(root.resolve("memory/rota/w-1")), "the agent's, not empty");

    groups.removeUnheld(id -> false);
    assertFalse(Files.exists(root.resolve("memory/rota/w-1")), "nothing held: all gone");
    assertFalse(Files.exists(root.resolve("cpu/rota/w-1")));
  }
}
