//! Start TASKS tokio tasks that each sleep DELAY_MS and return their index,
//! await them all, print the sum. Usage: reference-spawn-tokio TASKS DELAY_MS

use std::time::Duration;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().expect("a number"));
    let (tasks, delay) = (args.next().expect("TASKS"), Duration::from_millis(args.next().expect("DELAY_MS")));
    let handles: Vec<_> = (0..tasks)
        .map(|i| {
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                i
            })
        })
        .collect();
    let mut sum = 0;
    for handle in handles {
        sum += handle.await.expect("a task panicked");
    }
    println!("{sum}");
}
