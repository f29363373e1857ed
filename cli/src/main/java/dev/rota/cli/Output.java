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
   * A watch's first list, as a table whose rows each say when and what ({@code SNAPSHOT}); the
   * changes that follow ({@link #watched}) line up under it, given the widths this answers.
   */
  int[] watchSnapshot(String what, List<JsonNode> items, List<Column> columns, String time) {
    if (format == Format.NAME) {
      list(what, items, columns);
      return null;
    }
    List<Column> shown = shown(columns);
    List<String[]> rows = new ArrayList<>();
    rows.add(watchRow("TIME", "EVENT", shown.stream().map(Column::header).toList()));
    for (JsonNode item : items) {
      rows.add(watchRow(time, "SNAPSHOT", cells(item, shown)));
    }
    // Wide enough for every event's name and a change's time, whatever the snapshot held.
    int[] widths = widths(rows);
    widths[0] = Math.max(widths[0], time.length());
    widths[1] = Math.max(widths[1], "SNAPSHOT".length());
    rows.forEach(row -> out.println(aligned(row, widths)));
    out.flush();
    return widths;
  }

  /**
   * One change of a watch: in a table, its time, its type and the columns after it, under the
   * snapshot's; in JSON or YAML, the line as the server sent it, one a line.
   */
  void watched(JsonNode line, List<Column> columns, String time, int[] widths) {
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
    if (format == Format.NAME) {
      out.println(text(object.path("name")));
      out.flush();
      return;
    }
    String[] row =
        watchRow(
            time,
            line.path("type").asText().toUpperCase(java.util.Locale.ROOT),
            cells(object, shown(columns)));
    out.println(
        aligned(row, widths == null ? widths(java.util.Collections.singletonList(row)) : widths));
    out.flush();
  }

  private static String[] watchRow(String time, String event, List<String> cells) {
    String[] row = new String[cells.size() + 2];
    row[0] = time;
    row[1] = event;
    for (int i = 0; i < cells.size(); i++) {
      row[i + 2] = cells.get(i);
    }
    return row;
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
    List<Column> columns = shown(all);
    List<String[]> rows = new ArrayList<>();
    rows.add(columns.stream().map(Column::header).toArray(String[]::new));
    for (JsonNode item : items) {
      rows.add(cells(item, columns).toArray(String[]::new));
    }
    int[] widths = widths(rows);
    rows.forEach(row -> out.println(aligned(row, widths)));
    out.flush();
  }

  private List<Column> shown(List<Column> all) {
    return all.stream().filter(c -> format == Format.WIDE || !c.wide()).toList();
  }

  /**
   * An item's cells; the last column (a message, mostly) runs on: nothing after it needs aligning.
   */
  private static List<String> cells(JsonNode item, List<Column> columns) {
    List<String> cells = new ArrayList<>(columns.size());
    for (int i = 0; i < columns.size(); i++) {
      cells.add(
          cell(
              columns.get(i).value().apply(item),
              i < columns.size() - 1 ? MAX_CELL : Integer.MAX_VALUE));
    }
    return cells;
  }

  private static int[] widths(List<String[]> rows) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    return widths;
  }

  /** The cells padded to {@code widths}, three spaces apart; a cell wider pushes the rest on. */
  private static String aligned(String[] row, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < row.length; i++) {
      line.append(row[i]);
      if (i < row.length - 1) {
        line.append(" ".repeat(Math.max(0, widths[i] - row[i].length()) + 3));
      }
    }
    return line.toString().stripTrailing();
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
