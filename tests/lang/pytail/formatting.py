import torch
d = torch.device('cpu')
print('{} device'.format(d), 'Epoch {:3d} loss {:.4f}'.format(3, 0.123456), '{a}-{0}'.format(1, a='x'))
print('%d items, %.3f loss, %s' % (3, 0.5, 'ok'), '%5.2f%%' % 99.5, '%(n)s=%(v)d' % {'n': 'a', 'v': 2})
print(', '.join(['a', 'b']), 'a b c'.split(), ' x '.strip(), 'abc'.upper(), 'x'.rjust(3), 'Ab'.startswith('A'))
print('{:>8}|{:<6.2f}|{!r}'.format('hi', 3.14159, 'q'))
print('loss: {}'.format(torch.tensor(0.5)))
