package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota image ...}: images fetched onto workers before VMs need them. */
@Command(
    name = "image",
    description = "Fetch images onto workers ahead of the VMs that need them, and follow it.")
final class ImageCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("IMAGE", "image"),
          new Output.Column("SELECTOR", p -> selector(p.path("workerSelector"))),
          new Output.Column("HELD", p -> p.path("held").asInt() + "/" + p.path("workers").size()),
          Output.Column.field("CREATED", "createdAt"),
          new Output.Column("WORKERS", ImageCommands::byWorker));

  /**
   * Each worker's part: {@code w1 held; w2 pulling 40% of 2048 MiB; w3 failed: not in its
   * registry}.
   */
  static String byWorker(JsonNode prefetch) {
    List<String> said = new ArrayList<>();
    for (JsonNode w : prefetch.path("workers")) {
      String state = w.path("state").asText();
      String message = w.path("message").asText("");
      String worker = w.path("worker").asText();
      said.add(
          message.isBlank()
              ? worker + " " + state
              : state.equals("failed")
                  ? worker + " failed: " + message
                  : message.startsWith(state) ? worker + " " + message : worker + " " + state);
    }
    return String.join("; ", said);
  }

  /** One row per matching worker: what it has done. */
  static final List<Output.Column> WORKERS =
      List.of(
          Output.Column.field("WORKER", "worker"),
          Output.Column.field("STATE", "state"),
          Output.Column.field("MESSAGE", "message"));

  static String path(String name) {
    return "/v1/images/prefetch/" + ApiClient.segment(name);
  }

  private static String selector(JsonNode pairs) {
    List<String> shown = new ArrayList<>();
    pairs.fields().forEachRemaining(e -> shown.add(e.getKey() + "=" + e.getValue().asText()));
    return shown.isEmpty() ? "(every qemu worker)" : String.join(",", shown);
  }

  @Command(
      name = "prefetch",
      description =
          "Fetch IMAGE onto every worker that runs qemu VMs (and carries the labels of -l), before"
              + " VMs need it; --wait waits until each holds it.")
  int prefetch(
      @Parameters(paramLabel = "IMAGE") String image,
      @Option(
              names = {"-l", "--selector"},
              paramLabel = "KEY=VALUE[,...]",
              description = "only workers carrying these labels")
          List<String> selector,
      @Mixin VmCommands.WaitOptions wait) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("image", image);
    Selector s = Selector.parse(selector);
    if (!s.isAny()) {
      body.put("workerSelector", s.pairs());
    }
    ApiClient api = root.api();
    JsonNode prefetch = api.post("/v1/images/prefetch", body);
    String name = prefetch.path("name").asText();
    if (wait.wait) {
      root.waiter(Waiter.parse(wait.timeout))
          .until(
              "prefetch " + name,
              () -> {
                JsonNode now = api.get(path(name));
                int held = now.path("held").asInt();
                int all = now.path("workers").size();
                for (JsonNode w : now.path("workers")) {
                  if (w.path("state").asText().equals("failed")) {
                    return Waiter.Look.unreachable(
                        "failed on " + w.path("worker").asText(), w.path("message").asText());
                  }
                }
                String progress =
                    held + "/" + all + " workers hold it" + pulling(now.path("workers"));
                return held == all ? Waiter.Look.done(progress) : Waiter.Look.waiting(progress);
              });
      prefetch = api.get(path(name));
    }
    return described(prefetch);
  }

  /** The first fetch under way, as its worker says: {@code ; dev-1 pulling 40% of 2048 MiB}. */
  private static String pulling(JsonNode workers) {
    for (JsonNode w : workers) {
      if (w.path("state").asText().equals("pulling")) {
        return "; " + w.path("worker").asText() + " " + w.path("message").asText();
      }
    }
    return "";
  }

  @Command(name = "list", description = "List image prefetches.")
  int list() {
    List<JsonNode> items = new ArrayList<>();
    root.api().get("/v1/images/prefetch").path("items").forEach(items::add);
    root.output().list("image prefetches", items, COLUMNS);
    return ExitCodes.OK;
  }

  @Command(
      name = "describe",
      description =
          "Show a prefetch, worker by worker: by its name, or every prefetch of an image.")
  int describe(@Parameters(paramLabel = "NAME|IMAGE") String nameOrImage) {
    for (JsonNode prefetch : prefetches(nameOrImage)) {
      described(prefetch);
    }
    return ExitCodes.OK;
  }

  /**
   * The prefetch of that name, or else every prefetch of that image address; a 404 (exit 3) when
   * there is none.
   */
  private List<JsonNode> prefetches(String nameOrImage) {
    ApiClient api = root.api();
    if (!looksLikeAnAddress(nameOrImage)) {
      return List.of(api.get(path(nameOrImage)));
    }
    List<JsonNode> found = new ArrayList<>();
    api.get("/v1/images/prefetch")
        .path("items")
        .forEach(
            p -> {
              if (p.path("image").asText().equals(nameOrImage)) {
                found.add(p);
              }
            });
    if (found.isEmpty()) {
      throw new CliException(ExitCodes.NOT_FOUND, "no prefetch of image " + nameOrImage);
    }
    return found;
  }

  /** A prefetch's name is a DNS label; an image's address has a scheme, a path or a tag. */
  private static boolean looksLikeAnAddress(String s) {
    return s.contains("/") || s.contains(":");
  }

  /** The prefetch's row, then (as a table) each worker's. */
  private int described(JsonNode prefetch) {
    if (root.format != Output.Format.TABLE) {
      root.output().value(prefetch);
      return ExitCodes.OK;
    }
    root.output().one(prefetch, COLUMNS);
    List<JsonNode> workers = new ArrayList<>();
    prefetch.path("workers").forEach(workers::add);
    root.output().say("");
    root.output().list("workers", workers, WORKERS);
    return ExitCodes.OK;
  }

  @Command(
      name = "delete",
      description =
          "Stop asking workers for the image (by the prefetch's name, or every prefetch of an"
              + " image); what they hold stays.")
  int delete(@Parameters(paramLabel = "NAME|IMAGE") String nameOrImage) {
    List<String> names = new ArrayList<>();
    if (looksLikeAnAddress(nameOrImage)) {
      prefetches(nameOrImage).forEach(p -> names.add(p.path("name").asText()));
    } else {
      names.add(nameOrImage);
    }
    for (String name : names) {
      root.api().delete(path(name));
      root.output().say("image prefetch " + name + " deleted");
    }
    return ExitCodes.OK;
  }
}
