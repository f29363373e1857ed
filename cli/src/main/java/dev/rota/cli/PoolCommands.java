package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code rota pool ...}: VMs kept booted and ready, each claimed as a new VM. */
@Command(
    name = "pool",
    description =
        "Create, list, inspect and delete warm pools; claim from one with rota vm create NAME"
            + " --from-pool POOL.",
    subcommands = PoolCommands.Create.class)
final class PoolCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("MIN-READY", "minReady"),
          Output.Column.field("MAX", "max"),
          Output.Column.field("STANDBY", "standby"),
          new Output.Column("READY", p -> Output.text(p.path("status").path("ready"))),
          new Output.Column("STARTING", p -> Output.text(p.path("status").path("starting"))),
          new Output.Column("CLAIMED", p -> Output.text(p.path("status").path("claimed"))),
          new Output.Column("MESSAGE", p -> Output.text(p.path("status").path("message"))));

  static String path(String name) {
    return "/v1/pools/" + ApiClient.segment(name);
  }

  @Command(
      name = "create",
      description =
          "Create a pool: rota pool create runners --min-ready 2 --max 10 --runtime qemu --image"
              + " IMAGE")
  static final class Create implements Callable<Integer> {
    @ParentCommand PoolCommands pools;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(
        names = "--min-ready",
        required = true,
        paramLabel = "N",
        description = "how many VMs to keep booted and ready to claim")
    int minReady;

    @Option(
        names = "--max",
        required = true,
        paramLabel = "N",
        description = "at most this many VMs out at once: ready ones and those claimed")
    int max;

    @Option(
        names = "--spread",
        paramLabel = "SPREAD",
        defaultValue = "none",
        description = VmSetCommands.SPREAD_HELP)
    String spread;

    @Option(
        names = "--standby",
        paramLabel = "HOW",
        defaultValue = "running",
        description =
            "how ready VMs wait: running, or suspended (booted once, then saved to their worker's"
                + " disk and resumed by a claim; a qemu template with --persistent-disk)")
    String standby;

    @Mixin VmSpecOptions template;

    @Parameters(
        index = "1..*",
        paramLabel = "COMMAND",
        description = "the command and its arguments, after --")
    List<String> command;

    @Override
    public Integer call() {
      ObjectNode body = pools.root.json.createObjectNode();
      body.put("name", name);
      body.put("minReady", minReady);
      body.put("max", max);
      body.put("standby", standby);
      ObjectNode spec =
          template.spec(pools.root.json, System.in, command, pools.root.api().context());
      VmSpecOptions.namespaceOfSet(body, spec);
      body.set("template", spec);
      body.set("spread", pools.root.json.valueToTree(VmSetCommands.spread(spread)));
      JsonNode created = pools.root.api().post("/v1/pools", body);
      pools.root.output().one(created, COLUMNS);
      return ExitCodes.OK;
    }
  }

  @Command(name = "list", description = "List warm pools.")
  int list(
      @Option(names = "--limit", paramLabel = "N", description = "at most this many") Integer limit,
      @Mixin NamespaceFilter inNamespace) {
    return listed("pools", "/v1/pools", inNamespace.query(root.api().context()), limit, COLUMNS);
  }

  @Command(name = "get", description = "Show one pool (-o yaml for its template).")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(
      name = "delete",
      description = "Delete the pool and its unclaimed VMs; VMs claimed from it stay.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("pool " + name + " being deleted");
    return ExitCodes.OK;
  }
}
