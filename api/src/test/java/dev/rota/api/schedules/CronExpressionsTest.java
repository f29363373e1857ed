package dev.rota.api.schedules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CronExpressionsTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "0 2 * * *",
        "0 2 * * MON-FRI",
        "*/15 * * * *",
        "0 0 1,15 * *",
        "0 9-17/2 * JAN-MAR 1-5",
        "0 0 ? * sun",
        "  30 4 * * 0  ",
        "59 23 31 12 6",
        "@daily",
        "@hourly",
        "@yearly",
      })
  void aScheduleTakesTheseAsTemporalDoes(String cron) {
    assertEquals(Optional.empty(), CronExpressions.problem(cron));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0 2 * *|has 4 fields",
        "0 0 2 * * *|has 6 fields",
        "60 * * * *|its minute field, 60, is wrong",
        "? * * * *|its minute field, ?, is wrong",
        "0 24 * * *|its hour field, 24, is wrong",
        "0 0 0 * *|its day of month field, 0, is wrong",
        "0 0 * 13 *|its month field, 13, is wrong",
        "0 0 * ? *|its month field, ?, is wrong",
        "0 0 * * 7|its day of week field, 7, is wrong",
        "0 0 * * FUN|its day of week field, FUN, is wrong",
        "0 5-2 * * *|its hour field, 5-2, is wrong: 5-2 ends before it begins",
        "0 1-2-3 * * *|its hour field, 1-2-3, is wrong",
        "*/0 * * * *|its minute field, */0, is wrong",
        "1,,2 * * * *|its minute field, 1,,2, is wrong",
        "@often|@often is not one of",
      })
  void aMistakeIsNamedByItsField(String cron, String says) {
    String problem = CronExpressions.problem(cron).orElseThrow();
    assertTrue(problem.startsWith(says), problem);
  }
}
