package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code rota vm-set ...}: N replicas of one VM spec, spread over workers. */
@Command(
    name = "vm-set",
    description = "Create, list, inspect, scale and delete VM sets; list their template versions.",
    subcommands = VmSetCommands.Create.class)
final class VmSetCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          new Output.Column("DESIRED", s -> Output.text(s.path("status").path("desired"))),
          new Output.Column("RUNNING", s -> Output.text(s.path("status").path("running"))),
          new Output.Column("PENDING", s -> Output.text(s.path("status").path("pending"))),
          new Output.Column("SPREAD", s -> spreadText(s.path("spread"))),
          new Output.Column("MESSAGE", s -> Output.text(s.path("status").path("message"))));

  /** What {@code --spread} takes, for sets and pools. */
  static final String SPREAD_HELP =
      "none, distinct-workers, label:KEY (e.g. label:zone: evenly over its values) or"
          + " label:KEY:VALUE=PERCENT,… (label:zone:a=70,b=30)";

  static String path(String name) {
    return "/v1/vm-sets/" + ApiClient.segment(name);
  }

  /**
   * {@code none}, {@code distinct-workers}, {@code label:zone} or {@code label:zone:a=70,b=30} as
   * the API spells it; the server checks it.
   */
  static Object spread(String text) {
    if (!text.startsWith("label:")) {
      return text;
    }
    String rest = text.substring("label:".length());
    int colon = rest.indexOf(':');
    if (colon < 0) {
      return Map.of("label", rest);
    }
    Map<String, Object> targets = new java.util.LinkedHashMap<>();
    for (String pair : rest.substring(colon + 1).split(",")) {
      String[] kv = pair.strip().split("=", 2);
      try {
        targets.put(kv[0], Integer.parseInt(kv.length < 2 ? "" : kv[1].strip()));
      } catch (NumberFormatException e) {
        throw new CliException(
            ExitCodes.USAGE,
            "--spread " + text + ": give label:KEY:VALUE=PERCENT,…, as label:zone:a=70,b=30");
      }
    }
    return Map.of("label", rest.substring(0, colon), "targets", targets);
  }

  /** A set's spread as {@code --spread} takes it. */
  static String spreadText(JsonNode spread) {
    if (!spread.isObject()) {
      return Output.text(spread);
    }
    StringBuilder b = new StringBuilder("label:").append(spread.path("label").asText());
    if (spread.path("targets").size() > 0) {
      java.util.List<String> shares = new java.util.ArrayList<>();
      spread
          .path("targets")
          .fields()
          .forEachRemaining(e -> shares.add(e.getKey() + "=" + e.getValue().asInt()));
      b.append(':').append(String.join(",", shares));
    }
    return b.toString();
  }

  /**
   * Until as many replicas are ready (run, their readiness checks passing) as the set wants, all of
   * its current template.
   */
  static JsonNode awaitReplicas(
      RotaCli root, ApiClient api, String name, VmCommands.WaitOptions w) {
    root.waiter(Waiter.parse(w.timeout))
        .until(
            "vm-set " + name,
            () -> {
              JsonNode status = api.get(path(name)).path("status");
              String progress =
                  status.path("running").asInt()
                      + "/"
                      + status.path("desired").asInt()
                      + " running"
                      + (status.has("ready") ? ", " + status.path("ready").asInt() + " ready" : "")
                      + (status.hasNonNull("message") ? ": " + status.get("message").asText() : "");
              int available =
                  status.has("ready")
                      ? status.path("ready").asInt()
                      : status.path("running").asInt();
              int desired = status.path("desired").asInt();
              boolean updated = !status.has("updated") || status.path("updated").asInt() == desired;
              return available == desired && updated
                  ? Waiter.Look.done(progress)
                  : Waiter.Look.waiting(progress);
            });
    return api.get(path(name));
  }

  @Command(
      name = "create",
      description =
          "Create a set: rota vm-set create web --replicas 3 --spread distinct-workers -- sleep 3600")
  static final class Create implements Callable<Integer> {
    @ParentCommand VmSetCommands sets;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--replicas", required = true, paramLabel = "N", description = "how many VMs")
    int replicas;

    @Option(
        names = "--spread",
        paramLabel = "SPREAD",
        defaultValue = "none",
        description = SPREAD_HELP)
    String spread;

    @Option(
        names = "--max-unavailable",
        paramLabel = "N",
        description = "replicas that may be down while rebalancing or rolling out (default 1)")
    Integer maxUnavailable;

    @Option(
        names = "--max-surge",
        paramLabel = "N",
        description = "replicas beyond --replicas a rollout of a new template may add (default 0)")
    Integer maxSurge;

    @Option(
        names = "--min-healthy-time",
        paramLabel = "D",
        description = "how long a new replica runs, ready, before a rollout counts it (e.g. 30s)")
    String minHealthyTime;

    @Option(
        names = "--progress-deadline",
        paramLabel = "D",
        description = "how long a rollout may go without a new replica available (default 10m)")
    String progressDeadline;

    @Option(
        names = "--auto-revert",
        description = "a stalled rollout goes back to the template that last rolled out whole")
    boolean autoRevert;

    @Option(
        names = "--canary",
        paramLabel = "N",
        description = "a rollout makes N new replicas first, then waits for: rota vm-set promote")
    Integer canary;

    @Option(
        names = "--auto-promote",
        description = "a rollout's canaries promote themselves once they are available")
    boolean autoPromote;

    @Mixin VmSpecOptions template;
    @Mixin VmCommands.WaitOptions wait;

    @Option(
        names = "--from-template",
        paramLabel = "TEMPLATE",
        description =
            "its replicas' spec made of this VM template (rota template list), with --param values")
    String fromTemplate;

    @Mixin TemplateParameters params;

    @Parameters(
        index = "1..*",
        paramLabel = "COMMAND",
        description = "the command and its arguments, after --")
    List<String> command;

    @Override
    public Integer call() {
      ObjectNode body = sets.root.json.createObjectNode();
      body.put("name", name);
      body.put("replicas", replicas);
      if (fromTemplate != null) {
        if (command != null) {
          throw new CliException(
              ExitCodes.USAGE,
              "a set made of a template takes no command: rota vm-set create NAME --replicas N"
                  + " --from-template TEMPLATE [--param NAME=VALUE]...");
        }
        params.into(body, fromTemplate, sets.root.json);
        // Spec flags beside it are sent, for the API to name.
        ObjectNode spec = template.spec(sets.root.json, System.in, null, Context.NONE);
        VmSpecOptions.namespaceOfSet(body, spec);
        if (!spec.isEmpty()) {
          body.set("template", spec);
        }
      } else {
        ObjectNode spec =
            template.spec(sets.root.json, System.in, command, sets.root.api().context());
        VmSpecOptions.namespaceOfSet(body, spec);
        body.set("template", spec);
      }
      body.set("spread", sets.root.json.valueToTree(spread(spread)));
      if (maxUnavailable != null) {
        body.put("maxUnavailable", maxUnavailable);
      }
      ObjectNode update = sets.root.json.createObjectNode();
      if (maxSurge != null) {
        update.put("maxSurge", maxSurge);
      }
      if (minHealthyTime != null) {
        update.put("minHealthyTime", minHealthyTime);
      }
      if (progressDeadline != null) {
        update.put("progressDeadline", progressDeadline);
      }
      if (autoRevert) {
        update.put("autoRevert", true);
      }
      if (canary != null) {
        update.put("canary", canary);
      }
      if (autoPromote) {
        update.put("autoPromote", true);
      }
      if (!update.isEmpty()) {
        body.set("update", update);
      }
      ApiClient api = sets.root.api();
      JsonNode created = api.post("/v1/vm-sets", body);
      sets.root
          .output()
          .one(wait.wait ? awaitReplicas(sets.root, api, name, wait) : created, COLUMNS);
      return ExitCodes.OK;
    }
  }

  @Command(name = "list", description = "List VM sets.")
  int list(
      @Option(names = "--limit", paramLabel = "N", description = "at most this many") Integer limit,
      @Mixin NamespaceFilter inNamespace) {
    return listed(
        "vm-sets", "/v1/vm-sets", inNamespace.query(root.api().context()), limit, COLUMNS);
  }

  @Command(name = "get", description = "Show one VM set (-o yaml for its template).")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  static final List<Output.Column> VERSION_COLUMNS =
      List.of(
          Output.Column.field("VERSION", "version"),
          new Output.Column("CURRENT", v -> v.path("current").asBoolean() ? "*" : ""),
          Output.Column.field("CREATED", "createdAt"),
          Output.Column.field("BY", "createdBy"),
          new Output.Column("COMMAND", v -> ShellWords.of(v.path("template").path("command"))));

  @Command(
      name = "history",
      description = "List the templates a set has had, the newest first: rota vm-set history web")
  int history(@Parameters(paramLabel = "NAME") String name) {
    List<JsonNode> versions = new java.util.ArrayList<>();
    root.api().get(path(name) + "/versions").path("items").forEach(versions::add);
    root.output().list("versions", versions, VERSION_COLUMNS);
    return ExitCodes.OK;
  }

  @Command(
      name = "diff",
      description =
          "Show what differs, field by field: between two of a set's versions (rota vm-set diff"
              + " web 1 3; the one before the current and the current by default), or between a"
              + " file and what runs (rota vm-set diff -f web.yaml), with what applying it would do")
  int diff(
      @Parameters(index = "0", arity = "0..1", paramLabel = "NAME") String name,
      @Parameters(index = "1", arity = "0..1", paramLabel = "V1") Integer from,
      @Parameters(index = "2", arity = "0..1", paramLabel = "V2") Integer to,
      @Option(
              names = {"-f", "--filename"},
              paramLabel = "FILE",
              description = "a set as apply takes it; - reads stdin")
          String file) {
    ApiClient api = root.api();
    if (file != null) {
      JsonNode set = VmSpecOptions.readFile(file, root.json, System.in);
      if (set == null || !set.path("name").isTextual()) {
        throw new CliException(ExitCodes.USAGE, file + ": a VM set with a name is needed");
      }
      PlanText.of(api.put(path(set.get("name").asText()) + "?dryRun=true", set))
          .forEach(root.output()::say);
      return ExitCodes.OK;
    }
    if (name == null) {
      throw new CliException(ExitCodes.USAGE, "diff needs a set's NAME, or -f FILE");
    }
    Map<Integer, JsonNode> templates = new java.util.HashMap<>();
    int current = 0;
    for (JsonNode v : api.get(path(name) + "/versions").path("items")) {
      templates.put(v.path("version").asInt(), v.path("template"));
      current = v.path("current").asBoolean() ? v.path("version").asInt() : current;
    }
    int a = from != null ? from : Math.max(1, current - 1);
    int b = to != null ? to : current;
    for (int v : List.of(a, b)) {
      if (!templates.containsKey(v)) {
        throw new CliException(
            ExitCodes.USAGE,
            "vm-set " + name + " has no version " + v + "; it has 1 to " + current);
      }
    }
    List<String> lines = PlanText.differences("template", templates.get(a), templates.get(b));
    root.output().say("vm-set " + name + ": version " + a + " -> " + b);
    (lines.isEmpty() ? List.of("  the same template") : lines)
        .forEach(line -> root.output().say(line.startsWith("  ") ? line : "  " + line));
    return ExitCodes.OK;
  }

  @Command(
      name = "revert",
      description =
          "Roll the set back to the template of one of its versions (as its next version): rota"
              + " vm-set revert web 1")
  int revert(
      @Parameters(index = "0", paramLabel = "NAME") String name,
      @Parameters(index = "1", paramLabel = "VERSION") int version,
      @Mixin VmCommands.WaitOptions wait) {
    ApiClient api = root.api();
    JsonNode reverted = api.post(path(name) + "/revert", Map.of("version", version));
    return shown(wait.wait ? awaitReplicas(root, api, name, wait) : reverted, COLUMNS);
  }

  @Command(
      name = "promote",
      description = "Promote the canaries of a set's rollout: it goes on to every replica")
  int promote(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().post(path(name) + "/promote", Map.of()), COLUMNS);
  }

  static final List<Output.Column> ROLLOUT_COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("VERSION", "version"),
          new Output.Column("ROLLOUT", s -> Output.text(s.path("status").path("rollout"))),
          new Output.Column(
              "UPDATED",
              s ->
                  s.path("status").path("updated").asInt()
                      + "/"
                      + s.path("status").path("desired").asInt()),
          new Output.Column("STABLE", s -> Output.text(s.path("status").path("stableVersion"))),
          new Output.Column("MESSAGE", s -> Output.text(s.path("status").path("message"))));

  @Command(
      name = "rollout",
      description = "Pause, resume or show a set's rollout: rota vm-set rollout pause web")
  int rollout(
      @Parameters(index = "0", paramLabel = "pause|resume|status") String action,
      @Parameters(index = "1", paramLabel = "NAME") String name) {
    ApiClient api = root.api();
    JsonNode set =
        switch (action) {
          case "pause", "resume" -> api.post(path(name) + "/rollout/" + action, Map.of());
          case "status" -> api.get(path(name));
          default ->
              throw new CliException(
                  ExitCodes.USAGE, "rollout takes pause, resume or status, got \"" + action + "\"");
        };
    return shown(set, ROLLOUT_COLUMNS);
  }

  @Command(name = "scale", description = "Change how many replicas: rota vm-set scale web 5")
  int scale(
      @Parameters(index = "0", paramLabel = "NAME") String name,
      @Parameters(index = "1", paramLabel = "REPLICAS") int replicas,
      @Mixin VmCommands.WaitOptions wait) {
    ApiClient api = root.api();
    JsonNode scaled = api.patch(path(name), Map.of("replicas", replicas));
    return shown(wait.wait ? awaitReplicas(root, api, name, wait) : scaled, COLUMNS);
  }

  @Command(name = "delete", description = "Delete the set and its VMs.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("vm-set " + name + " being deleted");
    return ExitCodes.OK;
  }
}
