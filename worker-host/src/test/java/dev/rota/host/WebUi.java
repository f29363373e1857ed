package dev.rota.host;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The Temporal Web UI as a person sees it: headless Chromium (Debian's, through its chromedriver,
 * so that nothing is downloaded), reading the page's text and that of the iframes the UI renders
 * markdown (summaries, details) in, and keeping screenshots.
 */
final class WebUi implements AutoCloseable {
  private static final Duration PATIENCE = Duration.ofSeconds(45);
  private static final Duration RELOAD_AFTER = Duration.ofSeconds(3);
  private final ChromeDriver driver;
  private final Path screenshots;

  private WebUi(ChromeDriver driver, Path screenshots) {
    this.driver = driver;
    this.screenshots = screenshots;
  }

  static WebUi open(Path chromium, Path profile, Path screenshots) throws Exception {
    Files.createDirectories(screenshots);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    // The flags that keep Chromium from reaching out to the network, which this machine does not
    // have.
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1500,1000",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .build();
    return new WebUi(new ChromeDriver(service, options), screenshots);
  }

  /**
   * Opens {@code url}, waits until the page's text, with its iframes', satisfies {@code shown}, and
   * keeps a screenshot of it as {@code <screenshot>.png}.
   */
  String show(String url, String what, Predicate<String> shown, String screenshot)
      throws Exception {
    driver.get(url);
    String[] last = {""};
    long[] settledAt = {System.nanoTime()};
    try {
      new WebDriverWait(driver, PATIENCE, Duration.ofMillis(250))
          .until(
              d -> {
                String now = text();
                if (shown.test(now)) {
                  last[0] = now;
                  return true;
                }
                // A page still loading changes, or shows nothing: wait until it has settled. On a
                // loaded machine that takes longer than any fixed time after the load.
                if (now.isBlank() || !now.equals(last[0])) {
                  if (!now.isBlank()) {
                    last[0] = now; // the failure tells the last page seen
                  }
                  settledAt[0] = System.nanoTime();
                  return false;
                }
                // The UI reads a workflow's details once per load ("press R for freshness"): a
                // page settled without them is loaded again.
                if (System.nanoTime() - settledAt[0] > RELOAD_AFTER.toNanos()) {
                  driver.navigate().refresh();
                  settledAt[0] = System.nanoTime();
                }
                return false;
              });
    } catch (org.openqa.selenium.TimeoutException e) {
      Files.write(
          screenshots.resolve(screenshot + "-not-shown.png"),
          ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      throw new AssertionError(
          "the Web UI never showed " + what + " at " + url + "; it showed:\n" + last[0], e);
    }
    Files.write(
        screenshots.resolve(screenshot + ".png"),
        ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    return last[0];
  }

  /** The page's visible text, then each iframe's. */
  String text() {
    List<String> parts = new ArrayList<>();
    parts.add(driver.findElement(By.tagName("body")).getText());
    for (WebElement frame : driver.findElements(By.tagName("iframe"))) {
      try {
        driver.switchTo().frame(frame);
        parts.add(driver.findElement(By.tagName("body")).getText());
      } catch (org.openqa.selenium.WebDriverException gone) {
        // The UI re-renders its frames as data arrives; the next look sees the new ones.
      } finally {
        driver.switchTo().defaultContent();
      }
    }
    return String.join("\n", parts);
  }

  @Override
  public void close() {
    driver.quit();
  }
}
