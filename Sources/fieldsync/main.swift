print("fieldsync")
