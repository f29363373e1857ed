package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota template ...}: VM specs with typed parameters, that VMs and sets are made of. */
@Command(
    name = "template",
    description =
        "Create, replace, list, inspect and delete VM templates; rota vm create NAME"
            + " --from-template TEMPLATE --param KEY=VALUE makes a VM of one.")
final class TemplateCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("NAMESPACE", "namespace"),
          new Output.Column(
              "PARAMETERS",
              t -> {
                List<String> names = new ArrayList<>();
                t.path("parameters")
                    .forEach(
                        p ->
                            names.add(
                                p.path("name").asText() + (p.path("default").isNull() ? "" : "?")));
                return String.join(",", names);
              }),
          new Output.Column("COMMAND", t -> ShellWords.of(t.path("spec").path("command"))),
          Output.Column.field("UPDATED", "updatedAt"));

  static String path(String name) {
    return "/v1/templates/" + ApiClient.segment(name);
  }

  /** A parameter's value as written on the command line: a number, a flag, a list, or a string. */
  static JsonNode value(ObjectMapper json, String written) {
    String v = written.strip();
    if (v.matches("-?[0-9]{1,18}") || v.equals("true") || v.equals("false") || v.startsWith("[")) {
      try {
        return json.readTree(v);
      } catch (java.io.IOException e) {
        throw new CliException(ExitCodes.USAGE, "--param value " + written + " is not JSON");
      }
    }
    return json.getNodeFactory().textNode(written);
  }

  /** A template's file: {@code -f FILE}, or stdin. */
  static final class TemplateFile {
    @Option(
        names = {"-f", "--file"},
        required = true,
        paramLabel = "FILE",
        description = "the template: name, spec, parameters, namespace; - reads stdin")
    String file;
  }

  @Command(
      name = "create",
      description = "Create a template from a file: rota template create -f runner.yaml")
  int create(@Mixin TemplateFile file) {
    JsonNode template = read(file.file);
    String namespace = root.api().context().namespace();
    if (template instanceof ObjectNode o && !o.has("namespace") && namespace != null) {
      o.put("namespace", namespace);
    }
    return shown(root.api().post("/v1/templates", template), COLUMNS);
  }

  @Command(name = "replace", description = "Replace a template from a file; its VMs keep theirs.")
  int replace(@Mixin TemplateFile file) {
    JsonNode template = read(file.file);
    return shown(root.api().put(path(template.path("name").asText()), template), COLUMNS);
  }

  @Command(name = "list", description = "List templates by name.")
  int list(@Mixin NamespaceFilter inNamespace) {
    return listedIn(
        "templates", "/v1/templates", inNamespace.namespace(root.api().context()), COLUMNS);
  }

  @Command(name = "get", description = "Show a template.")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(name = "delete", description = "Delete a template; VMs made of it stay.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("template " + name + " deleted");
    return ExitCodes.OK;
  }

  private JsonNode read(String file) {
    JsonNode template = VmSpecOptions.readFile(file, root.json, System.in);
    if (template == null || !template.path("name").isTextual()) {
      throw new CliException(ExitCodes.USAGE, file + ": a template needs a name");
    }
    return template;
  }
}
