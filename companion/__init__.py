"""The game: the pure rules engine, game records, the advisor, the table controller and the CLI."""
