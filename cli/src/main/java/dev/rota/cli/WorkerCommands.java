package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota worker ...}: the machines that run VMs. */
@Command(
    name = "worker",
    description = "List and inspect workers; pause, drain and resume their scheduling.")
final class WorkerCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("HEALTH", "health"),
          Output.Column.field("PAUSED", "schedulingPaused"),
          new Output.Column("DRAIN", w -> Output.text(w.path("drain").path("state"))),
          Output.Column.field("VMS", "vmCount"),
          new Output.Column("CPU", w -> used(w, "cpu")),
          new Output.Column("MEMORY", w -> used(w, "memory")),
          Output.Column.field("AGENT", "agentVersion").wideOnly(),
          new Output.Column("MESSAGE", WorkerCommands::message));

  /** Its health's message, then what its agent said a person should know of it (its notices). */
  static String message(JsonNode worker) {
    List<String> said = new java.util.ArrayList<>();
    if (worker.hasNonNull("healthMessage") && !worker.get("healthMessage").asText().isBlank()) {
      said.add(worker.get("healthMessage").asText());
    }
    worker.path("notices").forEach(n -> said.add(n.asText()));
    return String.join("; ", said);
  }

  /** {@code allocated/capacity}, as Orchard shows a worker's resources. */
  static String used(JsonNode worker, String resource) {
    return worker.path("allocated").path(resource).asLong(0)
        + "/"
        + worker.path("resources").path(resource).asLong(0);
  }

  static String path(String name) {
    return "/v1/workers/" + ApiClient.segment(name);
  }

  @Command(name = "list", description = "List workers by name.")
  int list(
      @Option(names = "--limit", paramLabel = "N", description = "at most this many") Integer limit,
      @Option(
              names = {"-l", "--selector"},
              paramLabel = "KEY=VALUE[,...]",
              description = "only workers carrying these labels")
          List<String> selector,
      @Option(
              names = {"-w", "--watch"},
              description = "then a row per change, as it happens, until interrupted")
          boolean watch) {
    if (watch) {
      return watched("/v1/workers", COLUMNS);
    }
    return listed("workers", "/v1/workers", Map.of(), limit, Selector.parse(selector), COLUMNS);
  }

  @Command(
      name = "get",
      description = "Show one worker (-o yaml for its labels, runtimes and images).")
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

  @Command(
      name = "drain",
      description =
          "Take its VMs off it and give it no new ones (kubectl drain, nomad node drain): "
              + "those with a restart policy start elsewhere first, the rest stop at the deadline; resume ends it.")
  int drain(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = "--deadline",
              paramLabel = "DURATION|TIME",
              defaultValue = "1h",
              description =
                  "when what is left stops: a duration from now (30m, 1h) or an RFC 3339 time (default 1h)")
          String deadline,
      @Mixin VmCommands.WaitOptions wait) {
    JsonNode worker =
        root.api().post(path(name) + "/drain", Map.of("deadline", deadlineTime(deadline)));
    if (wait.wait) {
      root.waiter(Waiter.parse(wait.timeout))
          .until(
              "worker " + name,
              () -> {
                JsonNode now = root.api().get(path(name));
                JsonNode drain = now.path("drain");
                if (drain.isMissingNode() || drain.isNull()) {
                  return Waiter.Look.failed("its drain was ended by a resume");
                }
                String progress =
                    drain.hasNonNull("progress") ? drain.get("progress").asText() : "draining";
                return "drained".equals(drain.path("state").asText())
                    ? Waiter.Look.done("drained")
                    : Waiter.Look.waiting(progress);
              });
      worker = root.api().get(path(name));
    }
    return shown(worker, COLUMNS);
  }

  /** A duration counts from now; anything else is the time itself, for the server to judge. */
  private String deadlineTime(String deadline) {
    if (deadline.matches("\\d+[smh]") || deadline.startsWith("P") || deadline.startsWith("p")) {
      return root.clock.instant().plus(Waiter.parse("--deadline", deadline)).toString();
    }
    return deadline;
  }
}
