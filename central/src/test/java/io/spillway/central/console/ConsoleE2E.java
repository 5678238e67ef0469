package io.spillway.central.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spillway.central.ApiClient;
import io.spillway.central.CentralProcess;
import io.spillway.central.EdgeBootstraps;
import io.spillway.policy.CrossFieldRule;
import io.spillway.policy.PolicyField;
import io.spillway.policy.RateLimitField;
import io.spillway.testkit.EdgeProcess;
import io.spillway.testkit.FreePorts;
import io.spillway.testkit.OriginServer;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real headless Chromium (Debian's /usr/bin/chromium through its
 * /usr/bin/chromedriver), against the packaged central as a process and a packaged edge connected
 * to it over ADS: login, the Edges list and its filter, the edge's panel, the overload editor with
 * central's own messages as you type, Save (checked through the API and on the real edge's
 * /overload), a 409 from a change made through the API meanwhile, Reset with confirmation, the
 * Request limits card and its editor (the same, for the list of limits, checked on the edge's
 * /ratelimits), a read-only operator, registering an edge, the login throttle, and the live charts of what the edge
 * reports (refusals rising while a bounded load loop runs in enforce). The browser runs in another time
 * zone than UTC, so local times and their UTC titles differ.
 *
 * <p>Without chromium or chromedriver the class is skipped, unless the environment variable CI is
 * set: then it fails. Screenshots go to target/console-screenshots, and to the directory named by
 * the system property {@code spillway.console.screenshots} when it is set (docs/console is made so).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ConsoleBrowser.Required.class)
class ConsoleE2E {

  private static final String TOKEN = "console-e2e-admin-token-0123456789";
  private static final String MANAGER = "alice";
  private static final String READER = "victor";
  private static final String PASSWORD = "console e2e passphrase";
  private static final String EDGE = "edge-web-1";
  private static final String IDLE_EDGE = "edge-web-2";
  private static final String BROWSER_TIME_ZONE = ConsoleBrowser.TIME_ZONE;
  private static final Duration WAIT = ConsoleBrowser.WAIT;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  private CentralProcess central;
  private EdgeProcess edge;
  private OriginServer origin;
  private int listenerPort;
  private ServerSocket busyPort;
  private ApiClient api;
  private String base;
  private ConsoleBrowser browser;
  private WebDriver driver;
  private WebDriverWait wait;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  // ---- set-up ----

  @BeforeAll
  void startCentralAndAnEdge() throws Exception {
    ConsoleBrowser.requirePresent();
    int xdsPort = FreePorts.pick();
    central = CentralProcess.start(dir, List.of("--data-dir", dir.resolve("data").toString(), "--xds-port", Integer.toString(xdsPort)),
        Map.of("SPILLWAY_ADMIN_TOKEN", TOKEN));
    api = new ApiClient(central.port());
    base = "http://127.0.0.1:" + central.port();
    createOperator(MANAGER, "edges:manage");
    createOperator(READER, "edges:read");
    String credential = call("POST", "/configuration/edges", "{\"id\": \"" + EDGE + "\", \"labels\": {\"env\": \"prod\", \"tier\": \"web\"}}", 201)
        .path("credential").asText();
    call("POST", "/configuration/edges", "{\"id\": \"" + IDLE_EDGE + "\", \"labels\": {\"env\": \"staging\", \"tier\": \"web\"}}", 201);

    // The real edge, with deployment defaults of its own, which it reports to central, and a
    // listener of its own in front of a real origin (for the live charts' refusals).
    origin = OriginServer.start("backend");
    listenerPort = FreePorts.pick();
    int adminPort = FreePorts.pick();
    Path bootstrap = dir.resolve("edge.yaml");
    Files.writeString(bootstrap, EdgeBootstraps.adsClient(adminPort, EDGE, xdsPort, credential)
        + EdgeBootstraps.staticProxy(listenerPort, origin.port()));
    edge = EdgeProcess.builder().bootstrap(bootstrap).adminPort(adminPort)
        .environment("HTTP_ADMISSION_CONTINUATION_SHARE", "0.5")
        .environment("HTTP_ADMISSION_START_SHARE", "0.4")
        .args("--xds-state-dir", Files.createDirectories(dir.resolve("edge-state")).toString(),
            "--report-interval", "0.5").start();
    awaitEdgeStatus(s -> s.path("connected").asBoolean() && s.path("reportedDefaults").has("HTTP_ADMISSION_CONTINUATION_SHARE")
        && s.path("ackedVersions").has("type.googleapis.com/spillway.policy.v1.OverloadPolicy"));

    // A listener on a port that is taken: central cannot know, the edge cannot bind it and NACKs.
    busyPort = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
    HttpResponse<String> put = api.send("PUT", "/configuration/resources/listeners/public?edgeId=" + EDGE, TOKEN, "application/yaml", """
        name: public
        address: {socket_address: {address: 127.0.0.1, port_value: %d}}
        filter_chains:
        - filters:
          - name: envoy.filters.network.http_connection_manager
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
              stat_prefix: public
              route_config:
                virtual_hosts:
                - name: all
                  domains: ["*"]
                  routes: [{match: {prefix: /}, direct_response: {status: 200}}]
              http_filters:
              - name: envoy.filters.http.router
                typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
        """.formatted(busyPort.getLocalPort()).getBytes(StandardCharsets.UTF_8));
    assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
    awaitEdgeStatus(s -> !s.path("lastNack").isNull());
  }

  @AfterAll
  void stopEverything() throws Exception {
    if (edge != null) {
      edge.close();
    }
    if (central != null) {
      central.close();
    }
    if (busyPort != null) {
      busyPort.close();
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
  void closeTheBrowser(TestInfo test) {
    if (browser != null) {
      browser.closeChecking(test.getDisplayName());
    }
  }

  // ---- the tests ----

  @Test
  void loginListFilterAndTheBackButton() throws Exception {
    driver.get(base + "/");
    WebElement username = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
    assertEveryControlHasALabel();
    username.sendKeys(MANAGER);
    driver.findElement(By.id("password")).sendKeys("not the password");
    driver.findElement(By.cssSelector("form.login button[type=submit]")).click();
    wait.until(ExpectedConditions.textToBe(By.cssSelector(".login-message"), "Wrong username or password."));
    driver.findElement(By.id("password")).sendKeys(PASSWORD + Keys.ENTER);

    WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-edge='" + EDGE + "']")));
    assertThat(driver.getCurrentUrl()).endsWith("#/edges");
    assertThat(driver.findElement(By.id("who")).getText()).contains("Signed in as " + MANAGER);
    assertThat(row.findElement(By.cssSelector("[data-label=Labels]")).getText()).contains("env=prod", "tier=web");
    assertThat(row.findElement(By.cssSelector("[data-label=Connection]")).getText()).isEqualTo("Connected");
    assertThat(row.findElement(By.cssSelector("[data-label='ACKed versions']")).getText()).contains("overload policy");
    WebElement idle = driver.findElement(By.cssSelector("tr[data-edge='" + IDLE_EDGE + "']"));
    assertThat(idle.findElement(By.cssSelector("[data-label=Connection]")).getText()).isEqualTo("Not connected");
    assertThat(idle.findElement(By.cssSelector("[data-label='Last seen']")).getText()).isEqualTo("never");

    // Last seen in the browser's time zone (Tokyo, UTC+9), the UTC instant in the title.
    JsonNode status = call("GET", "/configuration/edges/" + EDGE, null, 200).path("status");
    WebElement seen = row.findElement(By.cssSelector("[data-label='Last seen'] time"));
    Instant shown = Instant.parse(seen.getAttribute("datetime"));
    assertThat(shown).isBeforeOrEqualTo(Instant.parse(status.path("lastSeen").asText()));
    assertThat(seen.getAttribute("title")).isEqualTo(shown.toString() + " (UTC)");
    assertThat(seen.getText()).isEqualTo(DateTimeFormatter.ofPattern("MMM d, yyyy, hh:mm:ss a", Locale.US)
        .format(shown.atZone(ZoneId.of(BROWSER_TIME_ZONE))));

    // The last NACK: a red mark; the edge's error opens under it.
    WebElement nack = row.findElement(By.cssSelector("details.nack"));
    assertThat(nack.findElement(By.cssSelector("summary")).getText()).contains("NACK of listeners");
    String error = status.path("lastNack").path("error").asText();
    // The edge names the listener and why it could not start it.
    assertThat(error).contains("listener \"public\"").contains("cannot start on 127.0.0.1:" + busyPort.getLocalPort());
    assertThat(nack.findElement(By.cssSelector("summary")).getAttribute("title")).isEqualTo(error);
    assertThat(nack.findElement(By.cssSelector(".nack-error")).isDisplayed()).isFalse();
    assertNoHorizontalScroll();
    screenshot("edges");
    nack.findElement(By.cssSelector("summary")).click();
    assertThat(nack.findElement(By.cssSelector(".nack-error")).getText()).isEqualTo(error);
    assertNoHorizontalScroll();

    // Filter by label selector; a bad selector shows central's message.
    WebElement selector = driver.findElement(By.id("selector"));
    selector.sendKeys("env=prod,tier=web" + Keys.ENTER);
    wait.until(ExpectedConditions.urlContains("#/edges?selector=env%3Dprod%2Ctier%3Dweb"));
    wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("tr[data-edge]"), 1));
    assertThat(driver.findElement(By.cssSelector("tr[data-edge]")).getAttribute("data-edge")).isEqualTo(EDGE);
    selector = driver.findElement(By.id("selector"));
    selector.clear();
    selector.sendKeys("!tier" + Keys.ENTER);
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".edges-body"), "No edge matches this selector."));
    selector = driver.findElement(By.id("selector"));
    selector.clear();
    selector.sendKeys("=x" + Keys.ENTER);
    String central400 = api.send("GET", "/configuration/edges?selector=%3Dx", TOKEN, null, null).body();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".status"),
        "The selector is not valid: " + JSON.readTree(central400).path("error").asText()));

    // Back: the earlier filters, then the whole list; open the edge, back to the list, forward again.
    driver.navigate().back();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".edges-body"), "No edge matches this selector."));
    driver.navigate().back();
    driver.navigate().back();
    wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("tr[data-edge]"), 2));
    assertThat(driver.getCurrentUrl()).endsWith("#/edges");
    driver.findElement(By.linkText(EDGE)).click();
    wait.until(ExpectedConditions.urlToBe(base + "/#/edges/" + EDGE));
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.overload")));
    assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo(EDGE);
    driver.navigate().back();
    wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("tr[data-edge]"), 2));
    driver.navigate().forward();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.overload")));

    // A reload keeps the session (GET /auth/session); logging out ends it.
    driver.navigate().refresh();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.overload")));
    driver.findElement(By.id("logout")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
    driver.navigate().refresh();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
    assertThat(driver.findElements(By.cssSelector(".card.overload"))).isEmpty();
  }

  @Test
  void editSaveConflictAndResetOverloadProtection() throws Exception {
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"overload\": null}", 200);
    long revision = policies().path("revisions").path("overload").asLong();
    logIn(MANAGER);
    driver.get(base + "/#/edges/" + EDGE);
    WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.overload")));
    assertThat(card.getText()).contains("Nothing is set on this edge: it runs on its deployment defaults.");
    assertThat(card.findElement(By.cssSelector("[data-section=inbound]")).getText()).isEqualTo("Shadow deployment default");
    assertThat(driver.findElement(By.cssSelector(".card.defaults")).getText())
        .contains("HTTP_ADMISSION_CONTINUATION_SHARE", "0.5", "HTTP_ADMISSION_START_SHARE", "0.4");

    // Keyboard only: Tab to Edit, Enter opens the side panel with the focus inside it.
    WebElement edit = tabTo(By.xpath("//section[contains(@class,'overload')]//button[normalize-space()='Edit']"));
    edit.sendKeys(Keys.ENTER);
    WebElement drawer = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    assertThat(drawer.findElement(By.tagName("h2")).getText()).isEqualTo("Edit overload protection");
    assertThat(activeId()).isEqualTo("field-inbound-mode");
    assertEveryControlHasALabel();
    assertThat(new Select(field("inbound.mode")).getOptions()).extracting(WebElement::getText)
        .containsExactly("Deployment default (shadow)", "Off", "Shadow", "Enforce");
    assertThat(defaultLine("inbound.maxInFlight")).isEqualTo("Default 256 · HTTP_ADMISSION_MAX_IN_FLIGHT");
    assertThat(defaultLine("inbound.continuationShare"))
        .isEqualTo("Default 0.5, from HTTP_ADMISSION_CONTINUATION_SHARE on this edge (built-in 0.85)");
    assertThat(defaultLine("inbound.adaptive.maxLimit")).isEqualTo("Default 1024 · no environment variable");
    assertThat(drawer.findElements(By.cssSelector("details.advanced [data-field]"))).extracting(e -> e.getAttribute("data-field"))
        .containsExactly("inbound.adaptive.tolerance", "inbound.adaptive.smoothing", "inbound.adaptive.lagTargetMillis");
    assertThat(drawer.findElements(By.cssSelector("fieldset.section > legend"))).extracting(WebElement::getText)
        .containsExactly("Inbound admission", "Outbound calls");

    // Validation as you type, in central's words (taken from the shared policy module here).
    field("inbound.maxInFlight").sendKeys("0");
    assertThat(problem("inbound.maxInFlight")).isEqualTo(PolicyField.INBOUND_MAX_IN_FLIGHT.rangeMessage());
    field("inbound.maxInFlight").sendKeys(Keys.BACK_SPACE, "2.5");
    assertThat(problem("inbound.maxInFlight")).isEqualTo(PolicyField.INBOUND_MAX_IN_FLIGHT.typeMessage());
    field("inbound.maxInFlight").sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
    assertThat(problem("inbound.maxInFlight")).isEmpty();
    field("inbound.startShare").sendKeys("0.6");
    assertThat(problem("inbound.startShare"))
        .as("checked against the continuation share this edge reported")
        .isEqualTo(CrossFieldRule.START_SHARE_WITHIN_CONTINUATION_SHARE.message(0.6, 0.5));
    field("outbound.queueTimeoutMillis").sendKeys("600001");
    assertThat(problem("outbound.queueTimeoutMillis")).isEqualTo(PolicyField.OUTBOUND_QUEUE_TIMEOUT_MILLIS.rangeMessage());
    scrollTo(field("inbound.continuationShare"));
    screenshot("editor");

    // Save with problems sends nothing.
    saveButton().click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".editor-status"), "nothing was sent"));
    assertThat(activeId()).isEqualTo("field-inbound-startShare");
    assertThat(policies().path("revisions").path("overload").asLong()).isEqualTo(revision);

    // A valid change: inbound Enforce with a larger maximum limit, outbound Shadow; only those are sent.
    clear("inbound.startShare");
    clear("outbound.queueTimeoutMillis");
    new Select(field("inbound.mode")).selectByVisibleText("Enforce");
    new Select(field("outbound.mode")).selectByVisibleText("Shadow");
    field("inbound.adaptive.maxLimit").sendKeys("1536");
    assertThat(drawer.findElements(By.cssSelector(".problem:not([hidden])"))).isEmpty();
    saveButton().click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    JsonNode saved = policies();
    assertThat(saved.path("overload")).isEqualTo(JSON.readTree(
        "{\"inbound\": {\"mode\": \"enforce\", \"adaptive\": {\"maxLimit\": 1536}}, \"outbound\": {\"mode\": \"shadow\"}}"));
    assertThat(saved.path("revisions").path("overload").asLong()).isEqualTo(revision + 1);
    card = driver.findElement(By.cssSelector(".card.overload"));
    assertThat(card.findElement(By.cssSelector("[data-section=inbound]")).getText()).isEqualTo("Enforce set here");
    assertThat(card.findElement(By.cssSelector("[data-section=outbound]")).getText()).isEqualTo("Shadow set here");
    assertThat(card.findElement(By.cssSelector("tr[data-field='inbound.adaptive.maxLimit']")).getText())
        .isEqualTo("Maximum limit inbound.adaptive.maxLimit 1536 1024");
    assertThat(card.getText()).contains("Saved at revision " + (revision + 1))
        .contains("Also set here, the same as the deployment: outbound.mode.");
    awaitEdgeAdmissionMode("enforce");
    screenshot("card");

    // A change through the API while the editor is open: Save answers 409; Reload starts from it.
    editButton().click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    assertThat(new Select(field("inbound.mode")).getFirstSelectedOption().getText()).isEqualTo("Enforce");
    assertThat(field("inbound.adaptive.maxLimit").getAttribute("value")).isEqualTo("1536");
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE,
        "{\"overload\": {\"inbound\": {\"mode\": \"enforce\"}, \"outbound\": {\"mode\": \"off\"}}}", 200);
    field("outbound.maxQueue").sendKeys("300");
    saveButton().click();
    WebElement conflict = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer .conflict")));
    assertThat(conflict.getText()).contains("Someone else changed this edge's overload protection",
        "section overload of edge " + EDGE + " is at revision " + (revision + 2) + ", not the expected " + (revision + 1));
    assertThat(policies().path("overload").path("outbound").has("maxQueue")).isFalse();
    conflict.findElement(By.xpath(".//button[normalize-space()='Reload']")).click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("dialog.drawer .drawer-head"), "revision " + (revision + 2)));
    assertThat(new Select(field("outbound.mode")).getFirstSelectedOption().getText()).isEqualTo("Off");
    assertThat(field("inbound.adaptive.maxLimit").getAttribute("value")).isEmpty();
    assertThat(field("outbound.maxQueue").getAttribute("value")).isEmpty();

    // Cancel discards; so does Escape.
    field("outbound.maxQueue").sendKeys("300");
    drawerButton("Cancel").click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    editButton().click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    assertThat(field("outbound.maxQueue").getAttribute("value")).isEmpty();
    field("outbound.maxQueue").sendKeys("300", Keys.ESCAPE);
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    assertThat(policies().path("revisions").path("overload").asLong()).isEqualTo(revision + 2);

    // Reset asks first: dismissed, nothing happens; confirmed, "overload": null. (The panel is
    // redrawn when the cancelled editor's reload answers, so the button is found afresh.)
    clickAfresh(By.xpath("//section[contains(@class,'overload')]//button[normalize-space()='Reset to deployment defaults']"));
    WebElement confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
    assertThat(confirm.getText()).contains("Delete the overload protection set on " + EDGE);
    confirm.findElement(By.xpath(".//button[normalize-space()='Cancel']")).click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.modal")));
    assertThat(policies().path("overload").isNull()).isFalse();
    driver.findElement(By.xpath("//section[contains(@class,'overload')]//button[normalize-space()='Reset to deployment defaults']")).click();
    confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
    confirm.findElement(By.xpath(".//button[normalize-space()='Reset to deployment defaults']")).click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".card.overload"),
        "Nothing is set on this edge: it runs on its deployment defaults."));
    assertThat(policies().path("overload").isNull()).isTrue();
    assertThat(policies().path("revisions").path("overload").asLong()).isEqualTo(revision + 3);
    assertThat(call("GET", "/configuration/audit?edgeId=" + EDGE + "&section=overload&limit=1", null, 200)
        .path("entries").get(0).path("operator").asText()).isEqualTo(MANAGER);
    awaitEdgeAdmissionMode("shadow");
  }

  @Test
  void addSaveConflictAndRemoveRequestLimits() throws Exception {
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"rateLimits\": null}", 200);
    long revision = policies().path("revisions").path("rateLimits").asLong();
    JsonNode overload = policies().path("overload");
    try {
      logIn(MANAGER);
      driver.get(base + "/#/edges/" + EDGE);
      WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.ratelimits")));
      assertThat(card.getText()).contains("Nothing is set on this edge: no caller is limited by its policy.");
      assertThat(card.findElements(By.xpath(".//button[normalize-space()='Remove all request limits']"))).isEmpty();

      // Keyboard only: Tab to Edit, Enter opens the panel; with no limit the focus is on Add a limit.
      WebElement edit = tabTo(By.xpath("//section[contains(@class,'ratelimits')]//button[normalize-space()='Edit']"));
      edit.sendKeys(Keys.ENTER);
      WebElement drawer = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
      assertThat(drawer.findElement(By.tagName("h2")).getText()).isEqualTo("Edit request limits");
      assertThat(driver.switchTo().activeElement().getText()).isEqualTo("Add a limit");
      driver.switchTo().activeElement().sendKeys(Keys.ENTER);
      wait.until(d -> "rl-0-name".equals(activeId()));
      assertEveryControlHasALabel();
      assertThat(drawer.findElements(By.cssSelector("fieldset.limit legend"))).extracting(WebElement::getText).containsExactly("Limit 1");
      assertThat(new Select(limitField(0, "mode")).getOptions()).extracting(WebElement::getText)
          .containsExactly("Default (shadow)", "Off", "Shadow", "Enforce");

      // Validation as you type, in central's words (taken from the shared policy module here).
      assertThat(limitProblem(0, "name")).isEqualTo(RateLimitField.NAME.at(0).requiredMessage());
      limitField(0, "name").sendKeys("per key");
      assertThat(limitProblem(0, "name")).isEqualTo(RateLimitField.NAME.at(0).patternMessage());
      limitField(0, "name").sendKeys(Keys.chord(Keys.CONTROL, "a"), "per-key");
      assertThat(limitProblem(0, "name")).isEmpty();
      limitField(0, "key").sendKeys("header:x-api-key");
      limitField(0, "rate").sendKeys("0");
      assertThat(limitProblem(0, "rate")).isEqualTo(RateLimitField.RATE.at(0).rangeMessage());
      limitField(0, "rate").sendKeys(Keys.BACK_SPACE, "5");
      assertThat(limitProblem(0, "rate")).isEmpty();
      limitField(0, "burst").sendKeys("5");
      new Select(limitField(0, "mode")).selectByVisibleText("Enforce");
      limitField(0, "exempt").sendKeys("internal");

      // A second limit: the same name, and an exempt entry that is no prefix for clientAddress.
      drawerButton("Add a limit").click();
      limitField(1, "name").sendKeys("per-key");
      assertThat(limitProblem(1, "name")).isEqualTo(RateLimitField.NAME.at(1).duplicateMessage("per-key", RateLimitField.NAME.at(0)));
      limitField(1, "key").sendKeys("clientAddress");
      limitField(1, "rate").sendKeys("100");
      limitField(1, "burst").sendKeys("200");
      limitField(1, "exempt").sendKeys("10.0.0.0/8", Keys.ENTER, "10.0.0.0/33");
      assertThat(limitProblem(1, "exempt")).isEqualTo(RateLimitField.EXEMPT.at(1).entryAddressMessage(1));
      limitField(1, "retryAfterSeconds").sendKeys("3601");
      assertThat(limitProblem(1, "retryAfterSeconds")).isEqualTo(RateLimitField.RETRY_AFTER_SECONDS.at(1).rangeMessage());
      assertDrawerHasNoSidewaysScroll();
      scrollTo(limitField(1, "rate"));
      screenshot("ratelimits-editor");

      // Save with problems sends nothing; removing the second limit leaves none.
      drawerButton("Save request limits").click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".editor-status"), "Fix the 3 problems shown above first: nothing was sent."));
      assertThat(activeId()).isEqualTo("rl-1-name");
      assertThat(policies().path("revisions").path("rateLimits").asLong()).isEqualTo(revision);
      driver.findElement(By.cssSelector("dialog.drawer button[aria-label='Remove limit 2']")).click();
      assertThat(drawer.findElements(By.cssSelector("fieldset.limit"))).hasSize(1);
      assertThat(drawer.findElements(By.cssSelector(".problem:not([hidden])"))).isEmpty();
      drawerButton("Save request limits").click();
      wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
      JsonNode saved = policies();
      assertThat(saved.path("rateLimits")).isEqualTo(JSON.readTree("{\"limits\": [{\"name\": \"per-key\", \"key\": \"header:x-api-key\","
          + " \"rate\": 5, \"burst\": 5, \"mode\": \"enforce\", \"exempt\": [\"internal\"]}]}"));
      assertThat(saved.path("revisions").path("rateLimits").asLong()).isEqualTo(revision + 1);
      assertThat(saved.path("overload")).as("only the rateLimits section is sent").isEqualTo(overload);

      card = driver.findElement(By.cssSelector(".card.ratelimits"));
      WebElement limit = card.findElement(By.cssSelector(".limit[data-limit='per-key']"));
      assertThat(limit.findElement(By.cssSelector("h3")).getText()).isEqualTo("per-key Enforce");
      assertThat(limit.findElement(By.cssSelector("[data-field=key]")).getText()).isEqualTo("header:x-api-key");
      assertThat(limit.findElement(By.cssSelector("[data-field=rate]")).getText()).isEqualTo("5");
      assertThat(limit.findElement(By.cssSelector("[data-field=burst]")).getText()).isEqualTo("5");
      assertThat(limit.findElement(By.cssSelector("[data-field=retryAfterSeconds]")).getText()).isEqualTo("not set");
      assertThat(limit.findElement(By.cssSelector("[data-field=exempt]")).getText()).isEqualTo("internal");
      assertThat(limit.findElement(By.cssSelector("[data-field=maxKeys]")).getText()).isEqualTo("10000 (default)");
      assertThat(card.getText()).contains("Saved at revision " + (revision + 1), "one limit");
      awaitEdgeRateLimit("per-key", "enforce");
      assertNoHorizontalScroll();
      scrollTo(card);
      screenshot("ratelimits");

      // A change through the API while the editor is open: Save answers 409; Reload starts from it.
      clickRateLimitsButton("Edit");
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
      assertThat(limitField(0, "rate").getAttribute("value")).isEqualTo("5");
      assertThat(limitField(0, "exempt").getAttribute("value")).isEqualTo("internal");
      call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE,
          "{\"rateLimits\": {\"limits\": [{\"name\": \"per-key\", \"key\": \"header:x-api-key\", \"rate\": 7, \"burst\": 5}]}}", 200);
      limitField(0, "burst").sendKeys(Keys.BACK_SPACE, "6");
      drawerButton("Save request limits").click();
      WebElement conflict = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer .conflict")));
      assertThat(conflict.getText()).contains("Someone else changed this edge's request limits",
          "section rateLimits of edge " + EDGE + " is at revision " + (revision + 2) + ", not the expected " + (revision + 1));
      assertThat(policies().path("rateLimits").path("limits").get(0).path("burst").asInt()).isEqualTo(5);
      conflict.findElement(By.xpath(".//button[normalize-space()='Reload']")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("dialog.drawer .drawer-head"), "revision " + (revision + 2)));
      assertThat(limitField(0, "rate").getAttribute("value")).isEqualTo("7");
      assertThat(limitField(0, "burst").getAttribute("value")).isEqualTo("5");
      assertThat(new Select(limitField(0, "mode")).getFirstSelectedOption().getText()).isEqualTo("Default (shadow)");
      drawerButton("Cancel").click();
      wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".card.ratelimits .limit[data-limit='per-key'] h3"), "Shadow (default)"));

      // Remove asks first: dismissed, nothing happens; confirmed, "rateLimits": null.
      clickRateLimitsButton("Remove all request limits");
      WebElement confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
      assertThat(confirm.getText()).contains("Delete every request limit set on " + EDGE);
      confirm.findElement(By.xpath(".//button[normalize-space()='Cancel']")).click();
      wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.modal")));
      assertThat(policies().path("rateLimits").isNull()).isFalse();
      clickRateLimitsButton("Remove all request limits");
      confirm = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
      confirm.findElement(By.xpath(".//button[normalize-space()='Remove all request limits']")).click();
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".card.ratelimits"),
          "Nothing is set on this edge: no caller is limited by its policy."));
      assertThat(driver.findElement(By.cssSelector(".card.ratelimits")).getText()).contains("Removed: no request limit is set on this edge");
      assertThat(policies().path("rateLimits").isNull()).isTrue();
      assertThat(policies().path("revisions").path("rateLimits").asLong()).isEqualTo(revision + 3);
      assertThat(call("GET", "/configuration/audit?edgeId=" + EDGE + "&section=rateLimits&limit=1", null, 200)
          .path("entries").get(0).path("operator").asText()).isEqualTo(MANAGER);
      awaitEdgeRateLimit(null, null);
    } finally {
      call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"rateLimits\": null}", 200);
    }
  }

  @Test
  void theLiveChartsShowRefusalsRisingWhileALoadLoopRunsInEnforce() throws Exception {
    logIn(READER);
    driver.get(base + "/#/edges/" + EDGE);
    // The charts are redrawn at every report, so each check reads the page afresh.
    WebDriverWait charts = new WebDriverWait(driver, WAIT);
    charts.ignoring(StaleElementReferenceException.class);
    charts.until(d -> d.findElement(By.cssSelector(".card.live figure.chart.admission figcaption")).getText()
        .startsWith("Admission limit and in flight — now: mode "));
    charts.until(d -> d.findElement(By.cssSelector(".card.live figure.chart.peer")).getText().contains("Outbound guard: backend")
        && "closed".equals(d.findElement(By.cssSelector(".card.live figure.chart.peer")).getAttribute("data-breaker")));
    charts.until(d -> d.findElements(By.cssSelector(".card.live svg.plot[role=img][aria-label]")).size() >= 4);
    long before = charts.until(d -> refusalsCharted());

    // Enforce with a limit of one; a bounded loop of bursts of slow requests gets 503s.
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"overload\": {\"inbound\": {\"mode\": \"enforce\","
        + " \"maxInFlight\": 1, \"adaptive\": {\"minLimit\": 1, \"maxLimit\": 1}}}}", 200);
    try {
      awaitEdgeAdmissionMode("enforce");
      long refused = 0;
      for (int round = 0; round < 3; round++) {
        List<CompletableFuture<HttpResponse<Void>>> burst = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          burst.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort + "/delay/300"))
              .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()));
        }
        for (CompletableFuture<HttpResponse<Void>> response : burst) {
          refused += response.get(10, TimeUnit.SECONDS).statusCode() == 503 ? 1 : 0;
        }
      }
      assertThat(refused).isPositive();
      long expected = before + refused;
      charts.until(d -> {
        Long charted = refusalsCharted();
        return charted != null && charted >= expected;
      });
      charts.until(d -> {
        WebElement refusals = d.findElement(By.cssSelector(".card.live figure.chart.refusals"));
        return refusals.getText().contains("proxy (enforce)")
            && refusals.getText().contains(refusals.getAttribute("data-total") + " in the last ")
            && !refusals.findElements(By.cssSelector("svg polyline.s-proxy, svg circle.s-proxy")).isEmpty();
      });
      scrollTo(driver.findElement(By.cssSelector(".card.live")));
      screenshot("charts");
    } finally {
      call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"overload\": null}", 200);
    }
  }

  /** The refusals the live chart counts over its window (its figure's data-total); null before it is drawn. */
  private Long refusalsCharted() {
    List<WebElement> figure = driver.findElements(By.cssSelector(".card.live figure.chart.refusals"));
    return figure.isEmpty() ? null : Long.valueOf(figure.get(0).getAttribute("data-total"));
  }

  @Test
  void aReadOnlyOperatorSeesTheCardButCannotChangeAnything() throws Exception {
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE,
        "{\"overload\": {\"inbound\": {\"mode\": \"enforce\", \"adaptive\": {\"maxLimit\": 1536}}, \"outbound\": {\"mode\": \"shadow\"}}}", 200);
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"rateLimits\": {\"limits\": [{\"name\": \"per-client\","
        + " \"key\": \"clientAddress\", \"rate\": 100, \"burst\": 200, \"exempt\": [\"10.0.0.0/8\"]}]}}", 200);
    try {
    logIn(READER);
    assertThat(driver.findElements(By.xpath("//button[normalize-space()='Register edge']"))).isEmpty();
    driver.findElement(By.linkText(EDGE)).click();
    WebElement card = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.overload")));
    assertThat(card.findElement(By.cssSelector("[data-section=inbound]")).getText()).isEqualTo("Enforce set here");
    assertThat(card.findElement(By.cssSelector("tr[data-field='inbound.adaptive.maxLimit']")).getText()).contains("1536");
    assertThat(card.getText()).contains("Changing it needs the edges:manage permission.");
    assertThat(card.findElements(By.tagName("button"))).isEmpty();
    WebElement limits = driver.findElement(By.cssSelector(".card.ratelimits"));
    assertThat(limits.findElement(By.cssSelector(".limit[data-limit='per-client'] [data-field=exempt]")).getText()).isEqualTo("10.0.0.0/8");
    assertThat(limits.findElement(By.cssSelector(".limit[data-limit='per-client'] h3")).getText()).isEqualTo("per-client Shadow (default)");
    assertThat(limits.getText()).contains("Changing it needs the edges:manage permission.");
    assertThat(limits.findElements(By.tagName("button"))).isEmpty();
    assertThat(driver.findElements(By.cssSelector(".card.manage"))).isEmpty();
    assertThat(driver.findElements(By.tagName("button"))).extracting(WebElement::getText).containsExactly("Log out");
    assertThat(driver.findElement(By.cssSelector(".card.resources")).isDisplayed()).isTrue();
    } finally {
      call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"rateLimits\": null}", 200);
    }
  }

  @Test
  void theEdgesResourcesAndTheAuditLogAreShownToAReader() throws Exception {
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"overload\": {\"inbound\": {\"adaptive\": {\"maxLimit\": 2001}}}}", 200);
    call("PATCH", "/configuration/edges/policies?edgeId=" + EDGE, "{\"overload\": {\"inbound\": {\"adaptive\": {\"maxLimit\": 2002}}}}", 200);
    logIn(READER);
    driver.findElement(By.linkText(EDGE)).click();

    // What central sends the edge, read-only: the listener it could not bind, with its JSON.
    WebElement resources = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.resources")));
    WebElement listener = resources.findElement(By.cssSelector("li[data-resource='listeners/public']"));
    assertThat(listener.findElement(By.tagName("summary")).getText()).startsWith("public this edge · revision 1 · ").endsWith(" by admin");
    listener.findElement(By.tagName("summary")).click();
    assertThat(JSON.readTree(listener.findElement(By.cssSelector("pre.json")).getText()).path("address").path("socket_address")
        .path("port_value").asInt()).isEqualTo(busyPort.getLocalPort());
    assertThat(resources.findElements(By.tagName("button"))).isEmpty();

    // The audit log of this edge, newest first; filters go into the URL, so Back returns to them.
    driver.findElement(By.linkText("Audit log of this edge")).click();
    wait.until(ExpectedConditions.urlToBe(base + "/#/audit?edgeId=" + EDGE));
    WebElement newest = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-audit]")));
    JsonNode entry = call("GET", "/configuration/audit?edgeId=" + EDGE + "&limit=1", null, 200).path("entries").get(0);
    assertThat(newest.getAttribute("data-audit")).isEqualTo(entry.path("id").asText());
    assertThat(newest.findElement(By.cssSelector("[data-label=Operator]")).getText()).isEqualTo("admin");
    assertThat(newest.findElement(By.cssSelector("[data-label=Section]")).getText()).isEqualTo("overload");
    newest.findElement(By.cssSelector("details.change summary")).click();
    List<WebElement> beforeAfter = newest.findElements(By.cssSelector("pre.json"));
    assertThat(JSON.readTree(beforeAfter.get(0).getText())).isEqualTo(JSON.readTree("{\"inbound\": {\"adaptive\": {\"maxLimit\": 2001}}}"));
    assertThat(JSON.readTree(beforeAfter.get(1).getText())).isEqualTo(JSON.readTree("{\"inbound\": {\"adaptive\": {\"maxLimit\": 2002}}}"));
    assertEveryControlHasALabel();
    screenshot("audit");

    driver.findElement(By.id("audit-operator")).sendKeys("nobody" + Keys.ENTER);
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".audit-body"), "No change matches."));
    assertThat(driver.getCurrentUrl()).isEqualTo(base + "/#/audit?edgeId=" + EDGE + "&operator=nobody");
    driver.findElement(By.id("audit-since")).sendKeys("yesterday" + Keys.ENTER);
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".status"),
        "since must be an ISO-8601 instant such as 2030-01-01T00:00:00Z"));
    driver.navigate().back();
    driver.navigate().back();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-audit='" + entry.path("id").asText() + "']")));
    assertThat(driver.findElement(By.cssSelector("a[data-view=audit]")).getAttribute("aria-current")).isEqualTo("page");
  }

  @Test
  void registerRelabelNewCredentialAndDeregister() throws Exception {
    logIn(MANAGER);
    driver.findElement(By.xpath("//button[normalize-space()='Register edge']")).click();
    WebElement dialog = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")));
    assertEveryControlHasALabel();
    dialog.findElement(By.id("register-id")).sendKeys("edge-new");
    dialog.findElement(By.id("register-labels")).sendKeys("env=prod, tier=api" + Keys.ENTER);
    String credential = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("credential"))).getAttribute("value");
    assertThat(credential).startsWith("spe_");
    assertThat(dialog.getText()).contains("shown only now");
    dialog.findElement(By.xpath(".//button[normalize-space()='Copy']")).click();
    wait.until(ExpectedConditions.textMatches(By.cssSelector(".credential .status"), java.util.regex.Pattern.compile("Copied\\.|Selected: .*")));
    dialog.findElement(By.xpath(".//button[normalize-space()='Done']")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-edge='edge-new']")));
    assertThat(call("GET", "/configuration/edges/edge-new", null, 200).path("labels"))
        .isEqualTo(JSON.readTree("{\"env\": \"prod\", \"tier\": \"api\"}"));

    driver.findElement(By.linkText("edge-new")).click();
    WebElement relabel = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("relabel")));
    assertThat(relabel.getAttribute("value")).isEqualTo("env=prod, tier=api");
    relabel.clear();
    relabel.sendKeys("env=staging" + Keys.ENTER);
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".card.manage"), "Labels replaced."));
    assertThat(call("GET", "/configuration/edges/edge-new", null, 200).path("labels")).isEqualTo(JSON.readTree("{\"env\": \"staging\"}"));

    driver.findElement(By.xpath("//button[normalize-space()='Replace credential']")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")))
        .findElement(By.xpath(".//button[normalize-space()='Replace credential']")).click();
    WebElement replaced = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("credential")));
    assertThat(replaced.getAttribute("value")).startsWith("spe_").isNotEqualTo(credential);
    driver.findElement(By.xpath("//dialog//button[normalize-space()='Done']")).click();

    driver.findElement(By.xpath("//button[normalize-space()='Deregister']")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.modal")))
        .findElement(By.xpath(".//button[normalize-space()='Deregister']")).click();
    wait.until(ExpectedConditions.urlToBe(base + "/#/edges"));
    wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("tr[data-edge]"), 2));
    assertThat(api.send("GET", "/configuration/edges/edge-new", TOKEN, null, null).statusCode()).isEqualTo(404);
  }

  @Test
  void aThrottledLoginShowsHowLongToWait() {
    driver.get(base + "/");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username"))).sendKeys("mallory");
    // Five failures are allowed for a username; past them each attempt is refused for a while.
    for (int attempt = 0; attempt < 12; attempt++) {
      WebElement submit = driver.findElement(By.cssSelector("form.login button[type=submit]"));
      wait.until(ExpectedConditions.elementToBeClickable(submit));
      driver.findElement(By.id("password")).sendKeys("guess number " + attempt);
      submit.click();
      wait.until(d -> !d.findElement(By.cssSelector(".login-message")).getText().isEmpty());
      if (driver.findElement(By.cssSelector(".login-message")).getText().startsWith("Too many failed logins")) {
        break;
      }
    }
    assertThat(driver.findElement(By.cssSelector(".login-message")).getText()).matches("Too many failed logins\\. Try again in \\d+ s\\.");
    assertThat(driver.findElement(By.cssSelector("form.login button[type=submit]")).isEnabled()).isFalse();
  }

  @Test
  void aNarrowWindowShowsTheListAsBlocksWithoutSidewaysScrolling() throws Exception {
    logIn(MANAGER);
    viewport(420, 800);
    wait.until(d -> !d.findElement(By.cssSelector("table.edges thead")).isDisplayed());
    assertNoHorizontalScroll();
    screenshot("edges-narrow");
    driver.findElement(By.linkText(EDGE)).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".card.overload")));
    assertNoHorizontalScroll();
    editButton().click();
    WebElement drawer = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    assertThat(drawer.getSize().getWidth()).isLessThanOrEqualTo(420);
    assertThat(saveButton().isDisplayed()).isTrue();
    drawerButton("Cancel").click();
    wait.until(ExpectedConditions.invisibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    clickRateLimitsButton("Edit");
    drawer = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("dialog.drawer")));
    drawerButton("Add a limit").click();
    assertThat(drawer.getSize().getWidth()).isLessThanOrEqualTo(420);
    assertDrawerHasNoSidewaysScroll();
    assertThat(drawerButton("Save request limits").isDisplayed()).isTrue();
  }

  // ---- helpers ----

  /** Sizes the window so that the page itself (the viewport) is width × height. */
  private void viewport(int width, int height) {
    browser.viewport(width, height);
  }

  private void scrollTo(WebElement element) {
    browser.scrollTo(element);
  }

  private void createOperator(String name, String permission) throws Exception {
    call("POST", "/configuration/operators", "{\"name\": \"" + name + "\", \"permissions\": [\"" + permission
        + "\"], \"password\": \"" + PASSWORD + "\"}", 201);
  }

  /** One API call with the admin token, expecting a status; answers the JSON body (or null). */
  private JsonNode call(String method, String path, String body, int expected) throws Exception {
    HttpResponse<String> response = api.send(method, path, TOKEN, body == null ? null : "application/json",
        body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(expected);
    return response.body().isEmpty() ? null : JSON.readTree(response.body());
  }

  private JsonNode policies() throws Exception {
    return call("GET", "/configuration/edges/policies?edgeId=" + EDGE, null, 200);
  }

  private void awaitEdgeStatus(Predicate<JsonNode> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    JsonNode status;
    while (!condition.test(status = call("GET", "/configuration/edges/" + EDGE, null, 200).path("status"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("edge status never matched: " + status + "\n" + edge.logTail());
      }
      Thread.sleep(50);
    }
  }

  /** Waits until the real edge's /overload shows this inbound admission mode. */
  private void awaitEdgeAdmissionMode(String mode) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String seen;
    while (true) {
      HttpResponse<String> overload = http.send(HttpRequest.newBuilder(edge.adminUri("/overload")).build(), HttpResponse.BodyHandlers.ofString());
      seen = JSON.readTree(overload.body()).path("admission").path("mode").asText();
      if (seen.equals(mode)) {
        return;
      }
      assertThat(System.nanoTime()).as("the edge's admission mode becomes %s (still %s)", mode, seen).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private void logIn(String operator) {
    browser.logIn(base, operator, PASSWORD);
  }

  private WebElement field(String path) {
    return driver.findElement(By.id("field-" + path.replace('.', '-')));
  }

  private void clear(String path) {
    field(path).sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
  }

  private String problem(String path) {
    WebElement problem = driver.findElement(By.id("field-" + path.replace('.', '-') + "-problem"));
    return problem.isDisplayed() ? problem.getText() : "";
  }

  private String defaultLine(String path) {
    return driver.findElement(By.id("field-" + path.replace('.', '-') + "-default")).getText();
  }

  private WebElement saveButton() {
    return drawerButton("Save overload protection");
  }

  private WebElement drawerButton(String text) {
    return browser.drawerButton(text);
  }

  private WebElement limitField(int row, String key) {
    return driver.findElement(By.id("rl-" + row + "-" + key));
  }

  private String limitProblem(int row, String key) {
    WebElement problem = driver.findElement(By.id("rl-" + row + "-" + key + "-problem"));
    return problem.isDisplayed() ? problem.getText() : "";
  }

  private void clickAfresh(By locator) {
    browser.clickAfresh(locator);
  }

  private void clickRateLimitsButton(String text) {
    By button = By.xpath("//section[contains(@class,'ratelimits')]//button[normalize-space()='" + text + "']");
    wait.until(ExpectedConditions.elementToBeClickable(button));
    clickAfresh(button);
  }

  /**
   * Waits until the real edge's /ratelimits shows one limit with this name and mode, or none when
   * name is null.
   */
  private void awaitEdgeRateLimit(String name, String mode) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(edge.adminUri("/ratelimits")).build(), HttpResponse.BodyHandlers.ofString());
      JsonNode limits = JSON.readTree(page.body()).path("limits");
      boolean matches = name == null ? limits.isEmpty()
          : limits.size() == 1 && limits.get(0).path("name").asText().equals(name) && limits.get(0).path("mode").asText().equals(mode);
      if (matches) {
        return;
      }
      assertThat(System.nanoTime()).as("the edge's /ratelimits shows %s %s (it shows %s)", name, mode, page.body()).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private WebElement editButton() {
    return wait.until(ExpectedConditions.elementToBeClickable(
        By.xpath("//section[contains(@class,'overload')]//button[normalize-space()='Edit']")));
  }

  private String activeId() {
    return browser.activeId();
  }

  /** Presses Tab from the top of the page until the element has the focus; fails after 60 presses. */
  private WebElement tabTo(By locator) {
    WebElement target = wait.until(ExpectedConditions.visibilityOfElementLocated(locator));
    ((JavascriptExecutor) driver).executeScript("document.activeElement.blur()");
    for (int i = 0; i < 60; i++) {
      new Actions(driver).sendKeys(Keys.TAB).perform();
      if (driver.switchTo().activeElement().equals(target)) {
        return target;
      }
    }
    throw new AssertionError("Tab never reached " + locator);
  }

  private void assertEveryControlHasALabel() {
    browser.assertEveryControlHasALabel();
  }

  private void assertDrawerHasNoSidewaysScroll() {
    browser.assertDrawerHasNoSidewaysScroll();
  }

  private void assertNoHorizontalScroll() {
    browser.assertNoHorizontalScroll();
  }

  private void screenshot(String name) throws IOException {
    browser.screenshot(name);
  }
}
