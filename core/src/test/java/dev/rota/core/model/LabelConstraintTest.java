package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every operator on a worker with the label, one with another value, and one without it. */
class LabelConstraintTest {
  @ParameterizedTest(name = "{0} {1} {2} on {3}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        // label | operator | values (;) | the worker's value | admitted
        "os     | =         | linux          | linux        | true",
        "os     | =         | linux          | darwin       | false",
        "os     | =         | linux          | -            | false",
        "os     | !=        | linux          | darwin       | true",
        "os     | !=        | linux          | linux        | false",
        "os     | !=        | linux          | -            | true",
        "zone   | in        | a;b            | b            | true",
        "zone   | in        | a;b            | c            | false",
        "zone   | in        | a;b            | -            | false",
        "zone   | notIn     | a;b            | c            | true",
        "zone   | notIn     | a;b            | a            | false",
        "zone   | notIn     | a;b            | -            | true",
        "gpu    | exists    |                | nvidia       | true",
        "gpu    | exists    |                | -            | false",
        "gpu    | notExists |                | -            | true",
        "gpu    | notExists |                | nvidia       | false",
        "name   | regexp    | ci-[0-9]+      | ci-42        | true",
        "name   | regexp    | ci-[0-9]+      | ci-42-old    | false",
        "name   | regexp    | ci-[0-9]+      | -            | false",
        "kernel | version   | >= 6.1, < 7    | 6.1.0-amd64  | true",
        "kernel | version   | >= 6.1, < 7    | 6.10.2       | true",
        "kernel | version   | >= 6.1, < 7    | 6.0.9        | false",
        "kernel | version   | >= 6.1, < 7    | 7            | false",
        "kernel | version   | != 6.2         | 6.2.0        | false",
        "kernel | version   | > 1            | v1.0.1       | true",
        "kernel | version   | = 2            | not-a-number | false",
        "kernel | version   | >= 6.1         | -            | false",
      })
  void eachOperator(
      String label, String operator, String values, String workerValue, boolean admitted) {
    LabelConstraint c =
        new LabelConstraint(
            label, operator, values == null ? List.of() : Arrays.asList(values.split(";")));
    assertEquals(java.util.Optional.empty(), c.problem(), "a valid constraint");
    Map<String, String> labels = new HashMap<>();
    if (workerValue != null) {
      labels.put(label, workerValue);
    }
    assertEquals(admitted, c.admits(labels), c + " on " + labels);
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "~=        | a      | operator | must be one of =, !=, in, notIn, exists, notExists, regexp, version",
        "exists    | a      | values   | takes none with exists",
        "in        | -      | values   | needs one or more with in",
        "=         | a;b    | values   | needs exactly one with =",
        "regexp    | ci-[0- | values   | is not a regular expression: Illegal character range",
        "regexp    | (a     | values   | is not a regular expression: Unclosed group",
        "version   | about 6 | values  | is not a list of version comparisons such as \">= 6.1, < 7\": \"about 6\"",
        "version   | >= 6,  | values   | is not a list of version comparisons such as \">= 6.1, < 7\": \"\"",
      })
  void badConstraintsSayWhichPartIsWrong(
      String operator, String values, String part, String message) {
    LabelConstraint c =
        new LabelConstraint(
            "x", operator, values == null ? List.of() : Arrays.asList(values.split(";")));
    assertEquals(
        java.util.Optional.of(new LabelConstraint.Problem(part, message)), c.problem(), "" + c);
  }

  @Test
  void aRegexpThatWouldBacktrackForeverIsCutShortAndMatchesNothing() {
    LabelConstraint evil = new LabelConstraint("name", "regexp", List.of("(a+)+b"));
    // Without the bound this match would run for longer than the universe has.
    assertFalse(evil.admits(Map.of("name", "a".repeat(60))));
    assertEquals(java.util.Optional.empty(), evil.problem(), "a valid expression all the same");
  }

  @Test
  void itReadsAsAPersonWritesIt() {
    assertEquals("zone in [a, b]", new LabelConstraint("zone", "in", List.of("a", "b")).toString());
    assertEquals("gpu exists", new LabelConstraint("gpu", "exists", List.of()).toString());
    assertEquals(
        "kernel version >= 6.1",
        new LabelConstraint("kernel", "version", List.of(">= 6.1")).toString());
  }
}
