package io.hybridconnector.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.cli.Args;
import io.hybridconnector.bench.harness.tomcat.ServiceUser;
import io.hybridconnector.reliability.report.Findings;
import io.hybridconnector.reliability.scenario.FaultsScenario;
import io.hybridconnector.reliability.scenario.IdleScenario;
import io.hybridconnector.reliability.scenario.SoakScenario;
import io.hybridconnector.reliability.scenario.OverloadScenario;
import io.hybridconnector.reliability.scenario.SlowlorisScenario;
import io.hybridconnector.reliability.scenario.LimitsScenario;
import io.hybridconnector.reliability.scenario.GracefulStopScenario;
import io.hybridconnector.reliability.scenario.SlowReadersScenario;

/**
 * The reliability suite of issue 16: runs the chosen scenarios in order against real Tomcat distributions with stock
 * NIO and ours side by side and writes {@code report.md} and {@code findings.csv}. Runs on the main thread.
 *
 * <p>Options: {@code --profile quick|full}, {@code --scenarios NAME,...} (default: all, in the order below),
 * {@code --results DIR} (default {@code target/reliability/DATE-PROFILE}), {@code --stage DIR} (where bench/harness
 * staged the distribution and artifacts), {@code --target DIR}, {@code --connector-jar JAR} (default: the staged one), {@code
 * --ours-attrs "name='value' ..."} (added to every connector of ours), {@code --user NAME} (run as root, Tomcat runs as this unprivileged user, made if missing,
 * default {@code hcbench}; {@code root} keeps it root; run as another user, Tomcat runs as that user).
 */
public final class Reliability {

    /** Report sections (Findings' scenario keys), in the order the report shows them: the order they run. */
    static final List<String> SECTIONS = List.of("error", "4-faults", "1-idle", "3-slow-readers", "6-graceful-stop",
            "5-uploads-limits", "2-slowloris", "8-overload", "7-soak");

    /** Every scenario, in the order they run. */
    static List<Scenario> all() {
        List<Scenario> s = new ArrayList<>();
        s.add(new FaultsScenario());
        s.add(new IdleScenario());
        s.add(new SlowReadersScenario());
        s.add(new GracefulStopScenario());
        s.add(new LimitsScenario());
        s.add(new SlowlorisScenario());
        s.add(new OverloadScenario());
        s.add(new SoakScenario());
        return s;
    }

    private Reliability() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = parse(args);
        if (o.containsKey("help")) {
            Lab.OUT.println("options: --profile quick|full --scenarios " + String.join(",", all().stream()
                    .map(Scenario::name).toList()) + " --results DIR --connector-jar JAR --ours-attrs \"name='value' ...\""
                    + " --user NAME (default " + ServiceUser.DEFAULT + "; root: Tomcat runs as root)");
            return;
        }
        Profile profile = Profile.of(o.getOrDefault("profile", "quick"));
        Path stage = Path.of(o.getOrDefault("stage", "../harness/target")).toAbsolutePath().normalize();
        Path target = Path.of(o.getOrDefault("target", "target")).toAbsolutePath().normalize();
        Path results = Path.of(o.getOrDefault("results", target.resolve("reliability/" + LocalDate.now(ZoneOffset.UTC)
                + "-" + profile.name()).toString())).toAbsolutePath();
        Path home = stage.resolve("dist/apache-tomcat-10.1.59");
        String user = o.getOrDefault("user", ServiceUser.DEFAULT);
        Path jar = Path.of(o.getOrDefault("connector-jar", stage.resolve("artifacts/hybrid-connector.jar").toString()))
                .toAbsolutePath();
        Lab lab = new Lab(home, jar,
                stage.resolve("artifacts/samples.war"), target.resolve("run"), results, profile, new Findings(),
                o.getOrDefault("ours-attrs", ""), user.equals("root") ? null : ServiceUser.ensure(user));
        for (Path p : List.of(home.resolve("bin/catalina.sh"), lab.connectorJar(), lab.samplesWar())) {
            if (!Files.exists(p)) {
                throw new IllegalStateException("missing " + p + ": run with -pl bench/reliability -am package");
            }
        }
        List<String> wanted = o.containsKey("scenarios") ? Arrays.asList(o.get("scenarios").split(",")) : null;
        long started = System.nanoTime();
        StringBuilder timing = new StringBuilder();
        for (Scenario s : all()) {
            if (wanted != null && !wanted.contains(s.name())) {
                continue;
            }
            lab.log("== %s: %s", s.name(), s.title());
            long t0 = System.nanoTime();
            try {
                s.run(lab);
            } catch (Exception e) {
                lab.findings().begin("error", "scenarios that failed");
                lab.findings().note("error", s.name() + " failed: " + e);
                lab.log("%s failed: %s", s.name(), e);
                e.printStackTrace(Lab.OUT);
            }
            timing.append(s.name()).append(' ').append((System.nanoTime() - t0) / 1_000_000_000).append(" s; ");
            lab.findings().write(results, header(lab, started, timing), SECTIONS);
        }
        lab.log("report: %s", results.resolve("report.md"));
    }

    private static String header(Lab lab, long started, CharSequence timing) {
        Profile profile = lab.profile();
        return "# Reliability suite (issue 16), profile " + profile.name() + "\n\n"
                + "| item | value |\n|---|---|\n"
                + "| finished | " + Instant.now() + " |\n"
                + "| server | Apache Tomcat 10.1.59 distribution (`catalina.sh run`), stock `"
                + "org.apache.coyote.http11.Http11NioProtocol` and ours `io.hybridconnector.HybridHttp11Protocol` on two"
                + " ports of the same server unless the scenario says otherwise; `-Xms1g -Xmx1g`, JDK "
                + System.getProperty("java.version") + ", run by " + (lab.runAs() == null ? "this process's user"
                        : lab.runAs()) + (lab.ourAttributes().isEmpty() ? "" : "; ours also with `"
                        + lab.ourAttributes() + "`") + " |\n"
                + "| machine | " + Runtime.getRuntime().availableProcessors() + " CPUs (shared with other jobs), kernel "
                + System.getProperty("os.version") + " |\n"
                + "| profile | " + profile + " |\n"
                + "| seconds per scenario (this invocation) | " + timing + "total " + (System.nanoTime() - started) / 1_000_000_000
                + " s |\n"
                + "\nVerdict: `ok` ours equal or better (within the slack named), `worse` ours worse, `differs` the two"
                + " behave differently where they should not, `fails on both` a criterion of issue 16 that neither"
                + " meets. Every figure comes from this run.\n";
    }

    /** Every option takes a value but {@code --help}; the map is keyed by the name without its dashes. */
    private static Map<String, String> parse(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        Args a = new Args(args, "");
        while (a.hasNext()) {
            String name = a.next();
            if (!name.startsWith("--")) {
                throw a.error("unexpected argument " + name);
            }
            o.put(name.substring(2), name.equals("--help") ? "" : a.value());
        }
        return o;
    }
}
