package io.spillway.central.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.central.ApiClient;
import io.spillway.central.CentralProcess;
import io.spillway.central.EdgeBootstraps;
import io.spillway.policy.AccessLogField;
import io.spillway.policy.AccessLogFormat;
import io.spillway.policy.AccessLogJson;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's Access log card and editor in a real headless Chromium ({@link ConsoleBrowser}),
 * against the packaged central as a process and a packaged edge connected to it over ADS: central's
 * own messages as you type (taken from the shared policy module here, so the browser's check and
 * central's cannot drift apart) with Save disabled, a save that the card shows, the policy API
 * answers at the next revision and the real edge writes to its file, a 409 from a change made
 * through the API meanwhile, Remove with confirmation, a JSON format edited key by key, and a
 * read-only operator who sees the section but no button.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ConsoleBrowser.Required.class)
class AccessLogConsoleE2E {

  private static final String TOKEN = "access-log-console-e2e-admin-token-0123";
  private static final String MANAGER = "alice";
  private static final String READER = "victor";
  private static final String PASSWORD = "console e2e passphrase";
  private static final String EDGE = "edge-web-1";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String POLICIES = "/configuration/edges/policies?edgeId=" + EDGE;

  @TempDir
  static Path dir;

  private CentralProcess central;
  private EdgeProcess edge;
  private OriginServer origin;
  private int listenerPort;
  private Path accessLogDir;
  private ApiClient api;
  private String base;
  private ConsoleBrowser browser;
  private WebDriver driver;
  private WebDriverWait wait;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  void startCentralAndAnEdge() throws Exception {
    ConsoleBrowser.requirePresent();
    int xdsPort = FreePorts.pick();
    central = CentralProcess.start(dir, List.of("--data-dir", dir.resolve("data").toString(), "--xds-port", Integer.toString(xdsPort)),
        Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN));
    api = new ApiClient(central.port());
    base = "http://127.0.0.1:" + central.port();
    for (String[] operator : List.of(new String[] {MANAGER, "edges:manage"}, new String[] {READER, "edges:read"})) {
      call("POST", "/configuration/operators", "{\"name\": \"" + operator[0] + "\", \"permissions\": [\"" + operator[1]
          + "\"], \"password\": \"" + PASSWORD + "\"}", 201);
    }
    String credential = call("POST", "/configuration/edges", "{\"id\": \"" + EDGE + "\", \"labels\": {\"env\": \"prod\"}}", 201)
        .path("credential").asText();

    // The real edge, writing central's access log under a directory of this test.
    origin = OriginServer.start("backend");
    listenerPort = FreePorts.pick();
    int adminPort = FreePorts.pick();
    accessLogDir = Files.createDirectories(dir.resolve("edge-logs"));
    Path bootstrap = dir.resolve("edge.yaml");
    Files.writeString(bootstrap, EdgeBootstraps.adsClient(adminPort, EDGE, xdsPort, credential)
        + EdgeBootstraps.staticProxy(listenerPort, origin.port()));
    edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort)
        .args("--xds-state-dir", Files.createDirectories(dir.resolve("edge-state")).toString(),
            "--access-log-dir", accessLogDir.toString()).start();
    awaitEdgeStatus(s -> s.path("connected").asBoolean()
        && s.path("ackedVersions").has("type.googleapis.com/spillway.policy.v1.OverloadPolicy"));
  }

  @AfterAll
  void stopEverything() throws Exception {
    if (edge != null) {
      edge.close();
    }
    if (central != null) {
      central.close();
    }
    if (origin != null) {
      origin.close();
    }
  }

  @BeforeEach
  void openABrowser() throws IOException {
    browser = ConsoleBrowser.open(dir);
    driver = browser.driver();
    wait = browser.await();
  }

  @AfterEach
  void closeTheBrowser(TestInfo test) throws Exception {
    try {
      if (browser != null) {
        browser.closeChecking(test.getDisplayName());
      }
    } finally {
      call("PATCH", POLICIES, "{\"accessLog\": null}", 200);
    }
  }

  // ---- the tests ----

  @Test
  void typeSaveConflictAndRemoveTheAccessLog() throws Exception {
    long revision = policies().path("revisions").path("accessLog").asLong();
    JsonNode overload = policies().path("overload");
    browser.logIn(base, MANAGER, PASSWORD);
    driver.get(base + "/#/edges/" + EDGE);
    WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.accesslog")));
    assertThat(card.findElement(By.tagName("h2")).getText()).isEqualTo("Access log");
    assertThat(card.getText()).contains("Nothing is set on this edge: it writes only the access logs of its bootstrap.");
    assertThat(card.findElements(By.xpath(".//button[normalize-space()='Remove the access log']"))).isEmpty();

    openEditor();
    browser.assertEveryControlHasALabel();
    assertThat(driver.findElement(By.cssSelector("dialog.drawer h2")).getText()).isEqualTo("Edit access log");
    assertThat(driver.findElement(By.id("al-kind-default")).isSelected()).isTrue();
    assertThat(driver.findElement(By.id("al-format")).isDisplayed()).as("the format string waits for its choice").isFalse();
    assertThat(saveButton().isEnabled()).as("nothing set is a valid section: {}").isTrue();
    // The operators offered are the policy's list, which a test in the edge keeps equal to the edge's.
    assertThat(driver.findElement(By.cssSelector("details.operators code")).getAttribute("textContent").split(" "))
        .containsExactlyElementsOf(new java.util.TreeSet<>(AccessLogFormat.OPERATORS));

    // An unknown operator: central's message under the field, Save disabled.
    driver.findElement(By.id("al-kind-format")).click();
    assertThat(problem("al-format")).isEqualTo(centralsProblem("{\"format\": \"\"}"));
    assertThat(saveButton().isEnabled()).isFalse();
    String bad = "%REQ(:METHOD)% %REQ(:PATH)% %RESPONSE_CODE% %UPSTREAM_NAME%";
    driver.findElement(By.id("al-format")).sendKeys(bad);
    assertThat(problem("al-format")).isEqualTo(centralsProblem("{\"format\": " + JSON.writeValueAsString(bad) + "}"))
        .contains("%UPSTREAM_NAME%", "position 44");
    assertThat(driver.findElement(By.id("al-format")).getAttribute("aria-invalid")).isEqualTo("true");
    assertThat(saveButton().isEnabled()).isFalse();
    assertThat(driver.findElement(By.id("al-save-hint")).getText()).isEqualTo("Save is disabled: fix the problem shown above first.");

    // More problems: a status code out of range, a file outside the log directory.
    driver.findElement(By.id("al-statusCode-value")).sendKeys("600");
    assertThat(problem("al-statusCode-value")).isEqualTo(AccessLogField.STATUS_CODE_VALUE.rangeMessage());
    new Select(driver.findElement(By.id("al-destination"))).selectByValue("file");
    driver.findElement(By.id("al-file")).sendKeys("../central.log");
    assertThat(problem("al-file")).isEqualTo(centralsProblem("{\"destination\": {\"file\": \"../central.log\"}}"));
    assertThat(driver.findElement(By.id("al-save-hint")).getText()).isEqualTo("Save is disabled: fix the 3 problems shown above first.");
    browser.assertDrawerHasNoSidewaysScroll();
    browser.scrollTo(driver.findElement(By.id("al-format")));
    browser.screenshot("accesslog-editor");
    assertThat(policies().path("revisions").path("accessLog").asLong()).as("nothing was sent").isEqualTo(revision);

    // Fixed, then saved: only the accessLog section is sent, at the revision the editor opened at.
    String format = "%REQ(:METHOD)% %REQ(:PATH)% %RESPONSE_CODE% %UPSTREAM_HOST%";
    replaceText(By.id("al-format"), format);
    assertThat(problem("al-format")).isEmpty();
    replaceText(By.id("al-statusCode-value"), "200");
    new Select(driver.findElement(By.id("al-statusCode-op"))).selectByValue("=");
    driver.findElement(By.id("al-not-health-check")).click();
    replaceText(By.id("al-file"), "central/access.log");
    assertThat(driver.findElements(By.cssSelector("dialog.drawer .problem:not([hidden])"))).isEmpty();
    assertThat(saveButton().isEnabled()).isTrue();
    saveButton().click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    JsonNode saved = policies();
    assertThat(saved.path("accessLog")).isEqualTo(JSON.readTree("{\"format\": " + JSON.writeValueAsString(format)
        + ", \"filters\": {\"statusCode\": {\"op\": \"=\", \"value\": 200}, \"notHealthCheck\": true},"
        + " \"destination\": {\"file\": \"central/access.log\"}}"));
    assertThat(saved.path("revisions").path("accessLog").asLong()).isEqualTo(revision + 1);
    assertThat(saved.path("overload")).as("only the accessLog section is sent").isEqualTo(overload);
    assertThat(saved.path("rateLimits").isNull()).isTrue();

    card = driver.findElement(By.cssSelector(".card.accesslog"));
    assertThat(card.getText()).contains("Set on this edge (revision " + (revision + 1) + ")",
        "Saved at revision " + (revision + 1));
    assertThat(card.findElement(By.cssSelector("[data-field=format] pre")).getText()).isEqualTo(format);
    assertThat(card.findElement(By.cssSelector("[data-filter=statusCode]")).getText()).isEqualTo("Status code = 200");
    assertThat(card.findElement(By.cssSelector("[data-filter=notHealthCheck]")).getText()).isEqualTo("Health checks skipped");
    assertThat(card.findElement(By.cssSelector("[data-field=destination]")).getText())
        .isEqualTo("central/access.log under the edge's --access-log-dir");
    browser.assertNoHorizontalScroll();

    // The real edge writes it: a request through its listener lands in the file, as formatted.
    Path file = accessLogDir.resolve("central/access.log");
    String line = "GET /through-the-edge 200 127.0.0.1:" + origin.port();
    awaitLogged(file, line);

    // A change through the API while the editor is open: Save answers 409, nothing is lost; Reload starts from it.
    openEditor();
    assertThat(driver.findElement(By.id("al-format")).getAttribute("value")).isEqualTo(format);
    assertThat(driver.findElement(By.id("al-not-health-check")).isSelected()).isTrue();
    call("PATCH", POLICIES, "{\"accessLog\": {\"format\": \"%RESPONSE_CODE%\"}}", 200);
    driver.findElement(By.id("al-format")).sendKeys(" %DURATION%");
    saveButton().click();
    WebElement conflict = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer .conflict")));
    assertThat(conflict.getText()).contains("Someone else changed this edge's access log",
        "section accessLog of edge " + EDGE + " is at revision " + (revision + 2) + ", not the expected " + (revision + 1));
    assertThat(policies().path("accessLog")).isEqualTo(JSON.readTree("{\"format\": \"%RESPONSE_CODE%\"}"));
    assertThat(driver.findElement(By.id("al-format")).getAttribute("value")).as("the edits stay until Reload")
        .isEqualTo(format + " %DURATION%");
    conflict.findElement(By.xpath(".//button[normalize-space()='Reload']")).click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("dialog.drawer .drawer-head"), "revision " + (revision + 2)));
    assertThat(driver.findElement(By.id("al-format")).getAttribute("value")).isEqualTo("%RESPONSE_CODE%");
    assertThat(driver.findElement(By.id("al-not-health-check")).isSelected()).isFalse();
    assertThat(new Select(driver.findElement(By.id("al-destination"))).getFirstSelectedOption().getText()).isEqualTo("Default (stdout)");
    browser.drawerButton("Cancel").click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".card.accesslog [data-field=destination]"), "stdout (default)"));

    // Remove asks first: dismissed, nothing happens; confirmed, "accessLog": null.
    clickCardButton("Remove the access log");
    WebElement confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
    assertThat(confirm.getText()).contains("Delete the access log set on " + EDGE);
    confirm.findElement(By.xpath(".//button[normalize-space()='Cancel']")).click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.modal")));
    assertThat(policies().path("accessLog").isNull()).isFalse();
    clickCardButton("Remove the access log");
    confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
    confirm.findElement(By.xpath(".//button[normalize-space()='Remove the access log']")).click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".card.accesslog"),
        "Nothing is set on this edge: it writes only the access logs of its bootstrap."));
    assertThat(driver.findElement(By.cssSelector(".card.accesslog")).getText())
        .contains("Removed: no access log is set on this edge (revision " + (revision + 3) + ")");
    assertThat(policies().path("accessLog").isNull()).isTrue();
    assertThat(policies().path("revisions").path("accessLog").asLong()).isEqualTo(revision + 3);
    assertThat(call("GET", "/configuration/audit?edgeId=" + EDGE + "&section=accessLog&limit=1", null, 200)
        .path("entries").get(0).path("operator").asText()).isEqualTo(MANAGER);
  }

  @Test
  void aJsonFormatIsEditedKeyByKey() throws Exception {
    browser.logIn(base, MANAGER, PASSWORD);
    driver.get(base + "/#/edges/" + EDGE);
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.accesslog")));
    openEditor();
    driver.findElement(By.id("al-kind-json")).click();
    assertThat(problem("al-json")).isEqualTo(AccessLogField.JSON.rangeMessage());
    assertThat(saveButton().isEnabled()).isFalse();

    browser.drawerButton("Add a key").click();
    wait.until(d -> "al-json-0-key".equals(browser.activeId()));
    driver.switchTo().activeElement().sendKeys("status");
    driver.findElement(By.id("al-json-0-value")).sendKeys("%RESPONSE_CODE%");
    browser.drawerButton("Add a key").click();
    driver.findElement(By.id("al-json-1-key")).sendKeys("path");
    driver.findElement(By.id("al-json-1-value")).sendKeys("%REQ(:PATH)");
    assertThat(problem("al-json-1-value")).isEqualTo(centralsProblem("{\"json\": {\"path\": \"%REQ(:PATH)\"}}"));
    browser.drawerButton("Add a key").click();
    driver.findElement(By.id("al-json-2-key")).sendKeys("status");
    assertThat(problem("al-json-2-key")).isEqualTo("accessLog.json.status is in row 1 already; each key once");
    assertThat(driver.findElement(By.cssSelector("label[for=al-json-2-key]")).getText()).startsWith("Key 3");
    browser.assertEveryControlHasALabel();
    assertThat(saveButton().isEnabled()).isFalse();

    driver.findElement(By.cssSelector("dialog.drawer button[aria-label='Remove key 3']")).click();
    driver.findElement(By.id("al-json-1-value")).sendKeys("%");
    new Select(driver.findElement(By.id("al-flags-mode"))).selectByValue("some");
    assertThat(problem("al-flags-mode")).isEqualTo("Choose at least one response flag, or \"Any response flag\".");
    driver.findElement(By.id("al-flag-UH")).click();
    driver.findElement(By.id("al-flag-NR")).click();
    new Select(driver.findElement(By.id("al-destination"))).selectByValue("stderr");
    assertThat(driver.findElements(By.cssSelector("dialog.drawer .problem:not([hidden])"))).isEmpty();
    saveButton().click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    assertThat(policies().path("accessLog")).isEqualTo(JSON.readTree("{\"json\": {\"status\": \"%RESPONSE_CODE%\","
        + " \"path\": \"%REQ(:PATH)%\"}, \"filters\": {\"responseFlags\": [\"UH\", \"NR\"]}, \"destination\": \"stderr\"}"));
    WebElement card = driver.findElement(By.cssSelector(".card.accesslog"));
    assertThat(card.findElements(By.cssSelector("[data-field=json] tbody tr"))).extracting(e -> e.getAttribute("data-key"))
        .containsExactly("status", "path");
    assertThat(card.findElement(By.cssSelector("[data-filter=responseFlags]")).getText()).isEqualTo("Response flag one of UH, NR");
    assertThat(card.findElement(By.cssSelector("[data-field=destination]")).getText()).isEqualTo("stderr");

    // Opened again, the editor starts from what is stored, in order.
    openEditor();
    assertThat(driver.findElement(By.id("al-kind-json")).isSelected()).isTrue();
    assertThat(driver.findElements(By.cssSelector("dialog.drawer .json-row input[name=json-key]")))
        .extracting(e -> e.getAttribute("value")).containsExactly("status", "path");
    assertThat(driver.findElement(By.id("al-flag-NR")).isSelected()).isTrue();
    browser.drawerButton("Cancel").click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
  }

  @Test
  void aReaderSeesTheAccessLogButNoButton() throws Exception {
    call("PATCH", POLICIES, "{\"accessLog\": {\"format\": \"%RESPONSE_CODE% %DURATION%\", \"filters\": {\"duration\":"
        + " {\"millis\": 250}, \"responseFlags\": []}}}", 200);
    browser.logIn(base, READER, PASSWORD);
    driver.get(base + "/#/edges/" + EDGE);
    WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.accesslog")));
    wait.until(ExpectedConditions.textToBePresentInElement(card, "Set on this edge"));
    assertThat(card.findElement(By.cssSelector("[data-field=format] pre")).getText()).isEqualTo("%RESPONSE_CODE% %DURATION%");
    assertThat(card.findElement(By.cssSelector("[data-filter=duration]")).getText()).isEqualTo("Duration >= 250 ms");
    assertThat(card.findElement(By.cssSelector("[data-filter=responseFlags]")).getText()).isEqualTo("Any response flag");
    assertThat(card.findElement(By.cssSelector("[data-field=destination]")).getText()).isEqualTo("stdout (default)");
    assertThat(card.getText()).contains("Changing it needs the edges:manage permission.");
    assertThat(card.findElements(By.tagName("button"))).isEmpty();
    assertThat(driver.findElements(By.tagName("button"))).extracting(WebElement::getText).containsExactly("Log out");
  }

  // ---- helpers ----

  /** The message central logs for the first problem of this accessLog section. */
  private static String centralsProblem(String section) throws Exception {
    AccessLogJson.Result result = AccessLogJson.parse(JSON.readTree(section));
    assertThat(result.problems()).as(section).isNotEmpty();
    return result.problems().get(0).message();
  }

  private void openEditor() {
    browser.clickAfresh(By.cssSelector(".card.accesslog button[aria-label='Edit access log']"));
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
  }

  private void clickCardButton(String text) {
    By button = By.xpath("//section[contains(@class,'accesslog')]//button[normalize-space()='" + text + "']");
    wait.until(ExpectedConditions.elementToBeClickable(button));
    browser.clickAfresh(button);
  }

  private WebElement saveButton() {
    return browser.drawerButton("Save access log");
  }

  /** The problem shown under the control with this id ("" when none is shown). */
  private String problem(String id) {
    WebElement problem = driver.findElement(By.id(id + "-problem"));
    return problem.isDisplayed() ? problem.getText() : "";
  }

  private void replaceText(By locator, String text) {
    WebElement input = driver.findElement(locator);
    input.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
    input.sendKeys(text);
  }

  /** One API call with the admin token, expecting a status; answers the JSON body (or null). */
  private JsonNode call(String method, String path, String body, int expected) throws Exception {
    HttpResponse<String> response = api.send(method, path, TOKEN, body == null ? null : "application/json",
        body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(expected);
    return response.body().isEmpty() ? null : JSON.readTree(response.body());
  }

  private JsonNode policies() throws Exception {
    return call("GET", POLICIES, null, 200);
  }

  private void awaitEdgeStatus(Predicate<JsonNode> condition) throws Exception {
    long deadline = System.nanoTime() + ConsoleBrowser.WAIT.toNanos();
    JsonNode status;
    while (!condition.test(status = call("GET", "/configuration/edges/" + EDGE, null, 200).path("status"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("edge status never matched: " + status + "\n" + edge.logTail());
      }
      Thread.sleep(50);
    }
  }

  /**
   * Sends a request through the edge's listener until the file holds the line (the edge applies
   * the section once it has it, and flushes its file on an interval); bounded by the wait.
   */
  private void awaitLogged(Path file, String line) throws Exception {
    long deadline = System.nanoTime() + ConsoleBrowser.WAIT.toNanos();
    while (true) {
      HttpResponse<String> through = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort
          + "/through-the-edge")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(through.statusCode()).isEqualTo(200);
      String written = Files.exists(file) ? Files.readString(file) : "";
      if (written.lines().anyMatch(line::equals)) {
        return;
      }
      assertThat(System.nanoTime()).as("the edge writes %s to %s (it holds %s)\n%s", line, file, written, edge.logTail())
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }
}
