fn main() -> miette::Result<()> {
    rulebook::cli::run()
}
