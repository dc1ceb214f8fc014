extends Node
## A call's argument count must fit the Godot 4 signature, or the script's own function.


func pair(a, b = 1) -> int:
	return a + b


func rest(first, ...others) -> void:
	print(first, others)


func _ready() -> void:
	pair()  # expect: call-arity
	pair(1, 2, 3)  # expect: call-arity
	pair(1)
	rest(1, 2, 3, 4)
	add_child()  # expect: call-arity
	print(1, 2, 3, 4, 5)
	var f := FileAccess.open("user://a.txt", FileAccess.READ)
	f.get_csv_line()


func _through_self() -> void:
	self.pair(1, 2, 3)  # expect: call-arity
	var child := self.get_child()  # expect: call-arity
