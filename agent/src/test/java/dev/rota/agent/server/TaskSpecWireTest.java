package dev.rota.agent.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agentapi.DiskSource;
import dev.rota.agentapi.DiskSpec;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.VolumeSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A task spec as the agent reads it: every field of its disks kept, whichever of a record's
 * constructors the reader could have taken (a token dropped fails a move's copy with a 401).
 */
class TaskSpecWireTest {
  private final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  @Test
  void aMovingVmsDiskSourceAndEachVolumesTokenAreReadWhole() throws Exception {
    DiskSpec disk =
        new DiskSpec(
            "devbox-7",
            true,
            20,
            new DiskSource("w1", "https://127.0.0.1:9", "disk1.1.a", "ab12"),
            List.of(new VolumeSpec("cache-v3", "cache", 10, "/var/cache", "disk1.1.b")));
    TaskSpec sent =
        new TaskSpec(
            "devbox",
            2,
            "qemu",
            "file:///d.qcow2",
            List.of(),
            Map.of(),
            Map.of("cpu", 1L),
            null,
            null,
            null,
            7L,
            null,
            null,
            null,
            disk,
            null);
    TaskSpec read = json.readValue(json.writeValueAsString(sent), TaskSpec.class);
    assertEquals(disk, read.disk());
    assertEquals(sent, read);
  }
}
