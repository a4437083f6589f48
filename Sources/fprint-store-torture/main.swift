print("torture")
