package dev.rota.api.vmsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VmSetCountsTest {
  @ParameterizedTest(name = "{0} running, {1} wanted, {2} there: {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          0 | 3 | 3  | 0 of 3 running
          2 | 3 | 3  | 2 of 3 running
          8 | 3 | 8  | 8 running, scaling down to 3; 5 being removed
          0 | 0 | 2  | 0 running, scaling down to 0; 2 being removed
          """)
  void aShrinkingSetSaysItIsScalingDown(long running, int desired, long total, String said) {
    assertEquals(said, VmSetService.counts(running, desired, total));
  }
}
