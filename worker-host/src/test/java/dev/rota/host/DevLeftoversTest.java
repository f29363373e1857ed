package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DevLeftoversTest {
  private static final Path DATA = Path.of("/home/me/rota/.rota-dev");

  @Test
  void whatIsLeftRunningIsSaidWithHowToStopIt() {
    assertEquals(Optional.empty(), DevLeftovers.leftRunning(List.of(), DATA));
    assertEquals(
        Optional.of(
            "rota: left running for the next start on /home/me/rota/.rota-dev to adopt: 2 VMs"
                + " (tiny, web); to stop them: ./rota dev --stop-vms"),
        DevLeftovers.leftRunning(List.of("tiny", "web"), DATA));
  }

  @Test
  void tasksOfAnotherDataFoldersDevAgentsAreNamedWithHowToAdoptOrStopThem() {
    List<Path> running =
        List.of(
            DATA.resolve("agents/dev-1/tasks/web.0"),
            Path.of("/tmp/other/agents/dev-1/tasks/a.0"),
            Path.of("/tmp/other/agents/dev-2/tasks/b.3"),
            Path.of("/var/lib/rota-agent/tasks/prod.0"));
    assertEquals(
        Optional.of(
            "rota: VMs that dev mode started on another data folder still run on this machine:"
                + " /tmp/other (2 tasks); this dev mode uses /home/me/rota/.rota-dev."
                + " ROTA_DATA_DIR=/tmp/other ./rota dev adopts them; ROTA_DATA_DIR=/tmp/other"
                + " ./rota dev --stop-vms stops them"),
        DevLeftovers.ofOtherDataFolders(running, DATA));
    assertEquals(
        Optional.empty(),
        DevLeftovers.ofOtherDataFolders(List.of(DATA.resolve("agents/dev-1/tasks/web.0")), DATA),
        "its own are its own to adopt");
  }
}
