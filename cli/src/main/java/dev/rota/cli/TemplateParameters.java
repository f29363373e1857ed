package dev.rota.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --param NAME=VALUE}: values for a template's parameters, as JSON where they read as it.
 */
final class TemplateParameters {
  @Option(
      names = "--param",
      paramLabel = "NAME=VALUE",
      description =
          "a value for one of the template's parameters: a whole number, true or false, a JSON"
              + " list, or else a string (repeatable)")
  Map<String, String> params = new LinkedHashMap<>();

  /** Puts {@code fromTemplate} and the values into {@code body}. */
  void into(ObjectNode body, String template, ObjectMapper json) {
    body.put("fromTemplate", template);
    body.set("parameters", values(json));
  }

  ObjectNode values(ObjectMapper json) {
    ObjectNode values = json.createObjectNode();
    params.forEach((k, v) -> values.set(k, TemplateCommands.value(json, v)));
    return values;
  }
}
