package dev.rota.workflows.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The term's lines in the Temporal UI, as a person reads them. */
class TermLinesTest {
  private static TermSummary term(
      long n, int placed, int moved, int failed, int pending, int started, long left) {
    return new TermSummary(
        n,
        0,
        0,
        false,
        new TermDecisions(placed, moved, pending, 0, 0, failed, 0, 0, 0, List.of()),
        new ApplyResult(started, 0, 0, 0, left));
  }

  @Test
  void aTermStartsFromWhatTheLastOneLeft() {
    assertEquals("term 1: first look", TermLines.starting(1, false, null, false));
    assertEquals(
        "term 812: woken, 3 waiting, 2 actions left over",
        TermLines.starting(812, true, term(811, 0, 0, 0, 3, 0, 2), false));
    assertEquals(
        "term 9: 0 waiting", TermLines.starting(9, false, term(8, 1, 0, 0, 0, 1, 0), false));
    assertEquals(
        "next term: woken, 3 waiting",
        TermLines.starting(0, true, term(811, 0, 0, 0, 3, 0, 0), false),
        "after quiet terms the workflow did not see, the number is the activity's to tell");
    assertEquals(
        "term 9: woken, after term 8: placed 1 · started 1 · 0 waiting",
        TermLines.starting(9, true, term(8, 1, 0, 0, 0, 1, 0), true),
        "no timer told what the last term did (a wake-up was waiting): this line does");
  }

  @Test
  void theTimerAfterSaysWhatTheTermDidAndWhenTheNextComes() {
    assertEquals(
        "term 812: placed 2 · moved 1 · failed 1 · started 2 · 3 waiting — next in 5 s",
        TermLines.done(term(812, 2, 1, 1, 3, 2, 0), Duration.ofSeconds(5)));
    assertEquals(
        "term 813: quiet — next in 20 s",
        TermLines.done(term(813, 0, 0, 0, 0, 0, 0), Duration.ofSeconds(20)));
    assertEquals(
        "term 814: 4 waiting — next in 1.5 s",
        TermLines.done(term(814, 0, 0, 0, 4, 0, 0), Duration.ofMillis(1500)));
    assertEquals(
        "term 815: actions left over 2 · 0 waiting — next in 1 s",
        TermLines.done(term(815, 0, 0, 0, 0, 0, 2), Duration.ofSeconds(1)),
        "a term that only waits for actions an agent did not take is not quiet");
  }

  @ParameterizedTest
  @CsvSource({
    "250, 250 ms",
    "1000, 1 s",
    "2500, 2.5 s",
    "14700, 15 s",
    "59600, 1 min",
    "29999, 30 s",
    "60000, 1 min",
    "90000, 1 min 30 s",
    "3900000, 1 h 5 min"
  })
  void waitsReadAsPeopleSayThem(long millis, String said) {
    assertEquals(said, dev.rota.workflows.Readable.duration(Duration.ofMillis(millis)));
  }
}
