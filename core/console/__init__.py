"""What the console needs from core: its protocols, view model and the backends behind them."""
