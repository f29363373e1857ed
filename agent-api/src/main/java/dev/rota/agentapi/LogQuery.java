package dev.rota.agentapi;

import java.time.Instant;

/**
 * Which part of a task's stdout or stderr to read: all that is kept, or from an offset ({@code
 * from}, one a previous read ended at), a time ({@code since}) or the last {@code tailLines} lines.
 * Each bound given applies (the others are null), and the latest wins.
 */
public record LogQuery(String stream, Long from, Instant since, Integer tailLines) {
  public static final java.util.List<String> STREAMS = java.util.List.of("stdout", "stderr");

  /** The query string the agent API takes, beginning with {@code ?}. */
  public String asQueryString() {
    StringBuilder q = new StringBuilder("?stream=").append(stream);
    if (from != null) {
      q.append("&from=").append(from);
    }
    if (since != null) {
      q.append("&since=").append(since);
    }
    if (tailLines != null) {
      q.append("&tailLines=").append(tailLines);
    }
    return q.toString();
  }
}
