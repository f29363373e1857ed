package dev.rota.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UsageMessagesTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        "Value for option option '--env' (KEY=VALUE) should be in KEY=VALUE format but was FOO"
            + " | Value for option '--env' (KEY=VALUE) should be in KEY=VALUE format but was FOO",
        "Invalid value for option '--cpu': 'abc' is not a long"
            + " | Invalid value for option '--cpu': 'abc' is not a whole number",
        "Invalid value for option '--replicas': 'x' is not an int"
            + " | Invalid value for option '--replicas': 'x' is not a whole number",
        "Unmatched argument at index 0: 'env' | Unknown argument: 'env'",
        "Unmatched arguments from index 2: 'a', 'b' | Unknown arguments: 'a', 'b'",
        "Missing required parameter: 'NAME' | Missing required parameter: 'NAME'"
      })
  void picocliSaysItInPlainEnglish(String said, String shown) {
    assertEquals(shown, UsageMessages.plain(said));
  }
}
