print("pathwatch")
