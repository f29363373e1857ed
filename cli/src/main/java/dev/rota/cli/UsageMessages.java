package dev.rota.cli;

/**
 * Picocli's messages for a command line it cannot take, put in plain English where they read as its
 * internals: {@code Value for option option '--env'}, {@code 'abc' is not a long}, {@code Unmatched
 * argument at index 0: 'env'}.
 */
final class UsageMessages {
  private UsageMessages() {}

  static String plain(String message) {
    return message
        .replace("option option", "option")
        .replaceAll("is not an? (long|int|integer|short)\\b", "is not a whole number")
        .replaceAll("^Unmatched arguments? from index \\d+: ", "Unknown arguments: ")
        .replaceAll("^Unmatched argument at index \\d+: ", "Unknown argument: ");
  }
}
