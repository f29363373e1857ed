package dev.rota.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShellWordsTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        "[\"sleep\",\"60\"]                   | sleep 60",
        "[\"sh\",\"-c\",\"echo hi; exit 3\"]  | sh -c 'echo hi; exit 3'",
        "[\"echo\",\"it's\"]                  | echo 'it'\\''s'",
        "[\"echo\",\"\"]                      | echo ''",
        "[\"ls\",\"/tmp/a=b,c:d\"]            | ls /tmp/a=b,c:d",
        "[\"echo\",\"$HOME\",\"*\"]           | echo '$HOME' '*'",
        "[]                                   | -"
      })
  void aCommandIsShownAsAShellWouldTakeItBack(String words, String shown) throws Exception {
    assertEquals(shown, ShellWords.of(new ObjectMapper().readTree(words)));
  }
}
