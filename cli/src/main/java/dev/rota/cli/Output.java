package dev.rota.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** What a command prints: a table by default (kubectl's), or the API's own JSON, or YAML, whole. */
final class Output {
  enum Format {
    TABLE,
    /** The table with its wide columns too. */
    WIDE,
    /** A name a line, for scripts: {@code rota vm list -o name | xargs ...}. */
    NAME,
    JSON,
    YAML
  }

  /**
   * A table column: its header and how a row's value is read from the API's JSON; a wide one shows
   * with {@code -o wide} alone.
   */
  record Column(String header, Function<JsonNode, String> value, boolean wide) {
    Column(String header, Function<JsonNode, String> value) {
      this(header, value, false);
    }

    static Column field(String header, String field) {
      return new Column(header, n -> text(n.path(field)));
    }

    /** The same column, shown with {@code -o wide} alone. */
    Column wideOnly() {
      return new Column(header, value, true);
    }
  }

  private static final int MAX_CELL = 60;

  private final Format format;
  private final PrintWriter out;
  private final PrintWriter err;
  private final ObjectMapper json;
  private final ObjectMapper yaml =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              // A string that reads as a number ("3600" in a command) stays a string when the
              // file is read back.
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));

  Output(Format format, PrintWriter out, PrintWriter err, ObjectMapper json) {
    this.format = format;
    this.out = out;
    this.err = err;
    this.json = json;
  }

  boolean isTable() {
    return format == Format.TABLE || format == Format.WIDE || format == Format.NAME;
  }

  /** A list: a row each, or as {@code {"items": [...]}} in JSON and YAML. */
  void list(String what, List<JsonNode> items, List<Column> columns) {
    if (isTable()) {
      if (items.isEmpty()) {
        err.println("no " + what + " found");
        err.flush();
        return;
      }
      table(items, columns);
      return;
    }
    ArrayNode array = json.createArrayNode();
    items.forEach(array::add);
    whole(json.createObjectNode().set("items", array));
  }

  /**
   * One line of a watch: in a table, a row of the columns after the event (the snapshot is a table
   * of its own, {@link #list}); in JSON or YAML, the line as the server sent it, one a line.
   */
  void watched(JsonNode line, List<Column> columns) {
    if (!isTable()) {
      try {
        out.println(json.writeValueAsString(line));
      } catch (JsonProcessingException e) {
        throw new CliException(ExitCodes.FAILED, "cannot print the answer: " + e.getMessage());
      }
      out.flush();
      return;
    }
    JsonNode object = line.path("object");
    StringBuilder row =
        new StringBuilder(line.path("type").asText().toUpperCase(java.util.Locale.ROOT));
    for (int i = 0; i < columns.size(); i++) {
      row.append("   ")
          .append(
              cell(
                  columns.get(i).value().apply(object),
                  i < columns.size() - 1 ? MAX_CELL : Integer.MAX_VALUE));
    }
    out.println(row.toString().stripTrailing());
    out.flush();
  }

  /** One resource: a one-row table, or whole. */
  void one(JsonNode item, List<Column> columns) {
    if (isTable()) {
      table(List.of(item), columns);
    } else {
      whole(item);
    }
  }

  /** A result that has no table (a token, settings): whole in every format, YAML for tables. */
  void value(JsonNode value) {
    if (format == Format.JSON) {
      whole(value);
    } else {
      write(yaml, value);
    }
  }

  /**
   * A line for people; not printed when a script asked for JSON or YAML, whose output stays
   * parseable.
   */
  void say(String line) {
    if (format == Format.TABLE || format == Format.WIDE) {
      out.println(line);
      out.flush();
    }
  }

  private void whole(JsonNode value) {
    write(format == Format.YAML ? yaml : json, value);
  }

  private void write(ObjectMapper mapper, JsonNode value) {
    try {
      String text = mapper.writerWithDefaultPrettyPrinter().writeValueAsString(value);
      out.print(text.endsWith("\n") ? text : text + "\n");
      out.flush();
    } catch (JsonProcessingException e) {
      throw new CliException(ExitCodes.FAILED, "cannot print the answer: " + e.getMessage());
    }
  }

  private void table(List<JsonNode> items, List<Column> all) {
    if (format == Format.NAME) {
      items.forEach(item -> out.println(text(item.path("name"))));
      out.flush();
      return;
    }
    List<Column> columns = all.stream().filter(c -> format == Format.WIDE || !c.wide()).toList();
    List<String[]> rows = new ArrayList<>();
    String[] header = columns.stream().map(Column::header).toArray(String[]::new);
    rows.add(header);
    for (JsonNode item : items) {
      String[] row = new String[columns.size()];
      for (int i = 0; i < row.length; i++) {
        // The last column (a message, mostly) runs on: nothing after it needs aligning.
        row[i] =
            cell(
                columns.get(i).value().apply(item),
                i < row.length - 1 ? MAX_CELL : Integer.MAX_VALUE);
      }
      rows.add(row);
    }
    int[] widths = new int[header.length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 3));
        }
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }

  private static String cell(String value, int max) {
    if (value == null || value.isEmpty()) {
      return "-";
    }
    String one = value.replaceAll("\\s*\\R\\s*", " ");
    return one.length() > max ? one.substring(0, max - 1) + "…" : one;
  }

  /** A JSON value as a cell: text as it is, maps as {@code k=v,k=v}, nothing as null. */
  static String text(JsonNode n) {
    if (n == null || n.isMissingNode() || n.isNull()) {
      return null;
    }
    if (n.isObject()) {
      List<String> pairs = new ArrayList<>();
      n.fields().forEachRemaining(e -> pairs.add(e.getKey() + "=" + text(e.getValue())));
      return String.join(",", pairs);
    }
    if (n.isArray()) {
      List<String> parts = new ArrayList<>();
      n.forEach(e -> parts.add(text(e)));
      return String.join(" ", parts);
    }
    return n.asText();
  }
}
