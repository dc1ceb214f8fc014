extends Node
## Godot 4 opens files with a static call that returns a new object: an open on an instance opens nothing.

var file: FileAccess


func save(text: String) -> void:
	file.open("user://save.txt", FileAccess.WRITE)  # expect: static-on-instance
	file.store_string(text)
	file = FileAccess.open("user://save.txt", FileAccess.WRITE)
