import io.hybridconnector.bench.harness.load.*;
import java.time.Duration;

public class Mix {
    public static void main(String[] a) throws Exception {
        int stock = Integer.parseInt(a[0]), ours = Integer.parseInt(a[1]);
        int rounds = Integer.parseInt(a[2]);
        Fairness f = new Fairness(Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(10));
        for (int i = 3; i < a.length; i++) {
            Fairness.Scenario s = Fairness.named(a[i]);
            f.run(stock, s, "warm stock", 0); f.run(ours, s, "warm ours", 0);
            for (int r = 1; r <= rounds; r++) {
                System.out.println(Fairness.brief(f.run(stock, s, "stock NIO", r)));
                System.out.println(Fairness.brief(f.run(ours, s, "ours", r)));
            }
        }
    }
}
