"""The history store (Parquet, by cluster and hour), its recorder, and the questions only history answers."""
