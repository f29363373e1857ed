package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code rota worker ...}: the machines that run VMs. */
@Command(
    name = "worker",
    description = "List and inspect workers; pause and resume their scheduling.")
final class WorkerCommands extends Noun {
  static final List<Output.Column> COLUMNS = List.of(
      Output.Column.field("NAME", "name"),
      Output.Column.field("HEALTH", "health"),
      Output.Column.field("PAUSED", "schedulingPaused"),
      Output.Column.field("VMS", "vmCount"),
      new Output.Column("CPU", w -> used(w, "cpu")),
      new Output.Column("MEMORY", w -> used(w, "memory")),
      Output.Column.field("MESSAGE", "healthMessage"));

  /** {@code allocated/capacity}, as Orchard shows a worker's resources. */
  static String used(JsonNode worker, String resource) {
    return worker.path("allocated").path(resource).asLong(0) + "/" + worker.path("resources").path(resource).asLong(0);
  }

  static String path(String name) {
    return "/v1/workers/" + ApiClient.segment(name);
  }

  @Command(name = "list", description = "List workers by name.")
  int list(@Option(names = "--limit", description = "at most this many") Integer limit) {
    return listed("workers", "/v1/workers", Map.of(), limit, COLUMNS);
  }

  @Command(name = "get", description = "Show one worker (-o yaml for its labels, runtimes and images).")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(name = "pause", description = "No new VMs on it; those it runs stay (kubectl cordon).")
  int pause(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().patch(path(name), Map.of("schedulingPaused", true)), COLUMNS);
  }

  @Command(name = "resume", description = "Let it take new VMs again (kubectl uncordon).")
  int resume(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().patch(path(name), Map.of("schedulingPaused", false)), COLUMNS);
  }

  private int show(JsonNode worker) {
    root.output().one(worker, COLUMNS);
    return ExitCodes.OK;
  }
}
