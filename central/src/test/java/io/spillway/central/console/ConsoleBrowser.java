package io.spillway.central.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One headless Chromium on the console, as the console's end-to-end tests drive it: Debian's
 * /usr/bin/chromium through its /usr/bin/chromedriver (both named, so Selenium Manager never looks
 * for or downloads either), in another time zone than UTC, at 1280×800; and what those tests check
 * on every page (labels, no sideways scrolling, no console error at the end) and the screenshots
 * they take for docs/console.
 */
final class ConsoleBrowser implements AutoCloseable {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  /** The browser's time zone: local times and their UTC titles differ. */
  static final String TIME_ZONE = "Asia/Tokyo";
  static final Duration WAIT = Duration.ofSeconds(15);

  private static final String MISSING = "the console tests need " + CHROMIUM + " and " + CHROMEDRIVER
      + " (Debian packages chromium and chromium-driver; bin/spillway test installs them when run as root)";

  /**
   * Skips the class, with its reason, when the browser or its driver is missing and CI is not set;
   * under CI the class runs and fails in its set-up ({@link #requirePresent()}).
   */
  static final class Required implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (present()) {
        return ConditionEvaluationResult.enabled("Chromium and chromedriver are installed");
      }
      return underCi() ? ConditionEvaluationResult.enabled("CI is set: a missing browser fails the test")
          : ConditionEvaluationResult.disabled("skipped: " + MISSING + "; with CI set this is a failure");
    }
  }

  private static boolean present() {
    return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
  }

  private static boolean underCi() {
    String ci = System.getenv("CI");
    return ci != null && !ci.isBlank();
  }

  /** Fails (under CI, where {@link Required} lets the class run) when the browser is missing. */
  static void requirePresent() {
    if (!present()) {
      fail("CI is set, so a missing browser is a failure: " + MISSING);
    }
  }

  private final WebDriver driver;
  private final WebDriverWait wait;

  private ConsoleBrowser(WebDriver driver) {
    this.driver = driver;
    this.wait = new WebDriverWait(driver, WAIT);
  }

  /** Starts a browser with a fresh profile under dir, its page 1280×800. */
  static ConsoleBrowser open(Path dir) throws IOException {
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort()
        .withEnvironment(Map.of("TZ", TIME_ZONE, "LANG", "en_US.UTF-8"))
        .withLogFile(Files.createTempFile(dir, "chromedriver-", ".log").toFile())
        .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,800", "--lang=en-US", "--no-first-run", "--no-default-browser-check",
        "--user-data-dir=" + Files.createTempDirectory(dir, "chromium-profile-"));
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ConsoleBrowser browser = new ConsoleBrowser(new ChromeDriver(service, options));
    browser.viewport(1280, 800);
    return browser;
  }

  WebDriver driver() {
    return driver;
  }

  WebDriverWait await() {
    return wait;
  }

  /**
   * Checks what the page logged — no script error, no Content-Security-Policy or Trusted Types
   * violation (refused requests, 401, 409, 429, are logged by Chromium too; they are expected) —
   * then quits.
   */
  void closeChecking(String testName) {
    try {
      List<String> problems = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
          .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
          .map(LogEntry::getMessage)
          .filter(m -> !m.contains("Failed to load resource: the server responded with a status of"))
          .toList();
      assertThat(problems).as("console errors in %s", testName).isEmpty();
    } finally {
      driver.quit();
    }
  }

  @Override
  public void close() {
    driver.quit();
  }

  /** Logs in on the login page of the console at base and waits for the Edges list. */
  void logIn(String base, String operator, String password) {
    driver.get(base + "/");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username"))).sendKeys(operator);
    driver.findElement(By.id("password")).sendKeys(password + Keys.ENTER);
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-edge]")));
  }

  /** Sizes the window so that the page itself (the viewport) is width × height. */
  void viewport(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
    List<?> inner = (List<?>) script("return [window.innerWidth, window.innerHeight];");
    int extraWidth = width - ((Number) inner.get(0)).intValue();
    int extraHeight = height - ((Number) inner.get(1)).intValue();
    if (extraWidth != 0 || extraHeight != 0) {
      driver.manage().window().setSize(new Dimension(width + extraWidth, height + extraHeight));
    }
  }

  Object script(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  void scrollTo(WebElement element) {
    script("arguments[0].scrollIntoView({block: 'center'});", element);
  }

  /** A button of the open side panel, by its text. */
  WebElement drawerButton(String text) {
    return driver.findElement(By.xpath("//dialog[contains(@class,'drawer')]//button[normalize-space()='" + text + "']"));
  }

  /** Clicks the element the locator finds, finding it again if the page redrew it meanwhile. */
  void clickAfresh(By locator) {
    new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class).until(d -> {
      d.findElement(locator).click();
      return true;
    });
  }

  /** The id of the focused element. */
  String activeId() {
    return driver.switchTo().activeElement().getAttribute("id");
  }

  /** Every visible input and select has a {@code <label>} of its own. */
  void assertEveryControlHasALabel() {
    Object unlabelled = script(
        "return [...document.querySelectorAll('input, select, textarea')].filter(e => e.type !== 'hidden' && e.labels.length === 0)"
            + ".map(e => e.id || e.name || e.outerHTML.slice(0, 60));");
    assertThat((List<?>) unlabelled).as("inputs without a label").isEmpty();
  }

  void assertDrawerHasNoSidewaysScroll() {
    WebElement body = driver.findElement(By.cssSelector("dialog.drawer .drawer-body"));
    assertThat(Long.parseLong(body.getDomProperty("scrollWidth"))).as("the side panel's content width vs its width")
        .isLessThanOrEqualTo(Long.parseLong(body.getDomProperty("clientWidth")));
  }

  void assertNoHorizontalScroll() {
    List<?> both = (List<?>) script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth];");
    assertThat(((Number) both.get(0)).intValue()).as("page width vs window width").isLessThanOrEqualTo(((Number) both.get(1)).intValue());
  }

  /**
   * Saves a screenshot as target/console-screenshots/name.png, and in the directory named by the
   * system property {@code spillway.console.screenshots} when it is set (docs/console is made so).
   */
  void screenshot(String name) throws IOException {
    File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Path target = Path.of("target", "console-screenshots");
    Files.createDirectories(target);
    Files.copy(shot.toPath(), target.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    String docs = System.getProperty("spillway.console.screenshots");
    if (docs != null && !docs.isBlank()) {
      Files.createDirectories(Path.of(docs));
      Files.copy(shot.toPath(), Path.of(docs, name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
